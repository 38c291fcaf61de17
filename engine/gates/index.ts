export { SCENARIOS, scenario, type Scenario, type ScenarioArea, type ScenarioNeeds } from './scenarios.js';
