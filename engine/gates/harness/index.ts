export { runCell, ManagerPool, EngineStandIn, type CellContext, type CellVerdict, type Check, type EngineOptions, type LookupResult, type Namespace, type ScenarioRun } from './cell.js';
export { ManagerProcess, defaultLauncher, DEFAULT_BLOCK_BYTES, type ManagerLauncher, type ManagerSpec } from './manager-process.js';
export { StandIn, AgentCallError, type AgentError } from './standin.js';
export { openWorkspace, type AdapterUnderTest, type Workspace, type WorkspaceOptions } from './workspace.js';
