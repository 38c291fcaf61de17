export { FAULT_POINTS, MAX_FAULT_MS, activeFaults, enableFaults, faultCounts, faultPoint, parseFaultPlan, type FaultPlan, type FaultPoint } from './faults.js';
