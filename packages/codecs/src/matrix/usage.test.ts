/** The conversion matrix, scenario "usage": every ordered pair of the five wire formats (see __tests__/matrix.ts). */
import { defineScenario } from './__tests__/define.js';

defineScenario('usage');
