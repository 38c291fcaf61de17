import { defineLifecycle } from './define.js';
import { APPLY, classify, requirementGuards, requirementReducers } from './hook.js';
import type { RequirementContext } from './requirement.js';

const OPEN = { blocked: 'restricted', consumed: 'replacement-consumed', authorized: 'reopenable' };
const refused = { actions: 'refuse' };

/**
 * A gap or a rejection: restricted (the gap holds, the profile is rejected) until its upstream
 * fix is released on the pinned line and consumed, and every reopening gate passed on that
 * profile; reopened only by a `support.expanded` record while reopenable; regressed when a
 * reopening cell fails afterwards. A verifier finding that the assertion no longer holds is
 * recorded, and authorizes nothing.
 */
export const restrictionLifecycle = defineLifecycle<RequirementContext>('restriction', requirementGuards, requirementReducers, {
  start: { always: [{ target: 'restricted' }] },
  restricted: { on: { ...APPLY, expanded: refused }, always: classify(OPEN, 'restricted') },
  'replacement-consumed': { on: { ...APPLY, expanded: refused }, always: classify(OPEN, 'replacement-consumed') },
  reopenable: { on: { ...APPLY, expanded: [{ guard: 'removalAuthorized', target: 'reopened', actions: 'viaReplacement' }, refused] }, always: classify(OPEN, 'reopenable') },
  reopened: { on: { ...APPLY, 'gate.result': [{ guard: 'isRegression', target: 'regressed', actions: 'applyResult' }, { actions: 'applyResult' }], expanded: refused } },
  regressed: { on: { ...APPLY, expanded: refused }, always: [{ guard: 'regressionCleared', target: 'reopened' }] },
});
