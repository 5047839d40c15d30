/** The conversion matrix, scenario "thinking": every ordered pair of the five wire formats (see __tests__/matrix.ts). */
import { defineScenario } from './__tests__/define.js';

defineScenario('thinking');
