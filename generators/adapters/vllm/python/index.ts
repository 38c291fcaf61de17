export { CONNECTOR_PY } from './connector.js';
export { KV_LAYOUT_PY } from './kv-layout.js';
export { SCHEDULER_HALF_PY } from './scheduler-half.js';
export { WORKER_HALF_PY } from './worker-half.js';

/**
 * The KVConnectorBase_V1 methods the connector module implements (scheduler half, worker half,
 * transfer results); a consumed method outside this list is a generation error (OKV5306).
 */
export const IMPLEMENTED_METHODS: readonly string[] = [
  'build_connector_meta',
  'get_block_ids_with_load_errors',
  'get_finished',
  'get_num_new_matched_tokens',
  'get_transfer_results',
  'handle_preemptions',
  'register_kv_caches',
  'request_finished',
  'reset_cache',
  'save_kv_layer',
  'shutdown',
  'start_load_kv',
  'take_events',
  'update_connector_output',
  'update_state_after_alloc',
  'wait_for_layer_load',
  'wait_for_save',
];
