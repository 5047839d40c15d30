/** The conversion matrix, scenarios "tool" and "parallel": every ordered pair of the five wire formats (see __tests__/matrix.ts). */
import { defineScenario } from './__tests__/define.js';

defineScenario('tool');
defineScenario('parallel');
