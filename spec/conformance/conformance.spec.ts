import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO } from '../generators/support.js';
import { conformance, installedSite } from './support.js';

const passed = (log: string, name: string) => assert.match(log, new RegExp(`${name} \\(.*\\) \\.\\.\\. ok`), `${name} did not pass\n${log}`);

describe('conformance: the generated packages in stand-in engines (embedded registry)', function () {
  this.timeout(300_000);

  it('SGLang radix backend: serve, plugin loading, config and Engine API selection, admission, linker shape, guards, logging', () => {
    const log = conformance('test_sglang_radix.py', installedSite(join(REPO, 'contracts')).site);
    for (const name of [
      'test_01_serve_subcommand_starts_and_reaches_the_manager_named',
      'test_01_serve_with_a_fake_manager_builds_the_cache',
      'test_01_a_systemexit_inside_the_plugin_is_explained',
      'test_02_hooks_are_applied_by_load_plugins_not_by_the_plugin',
      'test_02_a_later_plugin_on_the_same_target_is_never_dropped_silently',
      'test_03_linker_has_the_whole_abstract_shape_and_the_factory_builds_it',
      'test_04_selection_through_a_config_file_uses_the_live_server_args',
      'test_04_selection_through_the_engine_api_uses_the_live_server_args',
      'test_05_nothing_connects_before_the_tree_cache_rejections',
      'test_05_graph_capture_installs_the_completion_counter_without_the_manager',
      'test_06_real_signatures_register_and_the_draft_worker_call_passes',
      'test_06_the_guard_compares_what_matters_for_the_hook_type',
      'test_07_an_engine_decorator_is_not_someone_elses_patch',
      'test_07_a_replaced_target_and_a_hook_held_by_the_registry_are_rejected',
      'test_guards_name_a_missing_an_uncallable_and_an_incompatible_target',
      'test_opt_in_hooks_register_only_with_their_switch',
      'test_hook_bodies_pass_through_when_not_selected',
      'test_12_a_rejection_is_logged_once_and_raised_once',
      'test_13_one_connection_and_one_selection_per_process',
      'test_unselected_imports_nothing_heavy_and_registers_nothing',
    ])
      passed(log, name);
  });

  it('vLLM: plugin, factory with three arguments, preflight and live agree (config roots, local versions, env parsing), logging', () => {
    const log = conformance('test_vllm.py', installedSite(join(REPO, 'contracts')).site);
    for (const name of [
      'test_factory_builds_the_connector_with_three_arguments',
      'test_manager_not_reachable_names_the_product_and_its_env',
      'test_08_preflight_and_live_agree_on_config_roots',
      'test_09_a_local_version_part_matches_the_pin',
      'test_11_env_values_are_read_as_vllm_reads_them',
      'test_12_a_rejection_is_logged_once',
      'test_14_connector_set_up_failures_stop_named',
      'test_unselected_plugin_registers_nothing',
    ])
      passed(log, name);
  });
});

describe('conformance: a second product (spec/fixtures/tessera) in the same stand-in engines', function () {
  this.timeout(300_000);
  const dir = join(REPO, 'spec', 'fixtures', 'tessera');

  it('SGLang radix backend of the second product: plugin, hooks applied by load_plugins, guards, its opt-in hook, pass-through when not selected', () => {
    // The tests that read only the package's own data (Tessera has no graph-capture hook, so the
    // ones that build its linker or capture graphs are the embedded registry's).
    const names = [
      'test_01_a_systemexit_inside_the_plugin_is_explained',
      'test_02_hooks_are_applied_by_load_plugins_not_by_the_plugin',
      'test_06_the_guard_compares_what_matters_for_the_hook_type',
      'test_07_an_engine_decorator_is_not_someone_elses_patch',
      'test_hook_bodies_pass_through_when_not_selected',
      'test_opt_in_hooks_register_only_with_their_switch',
      'test_unselected_imports_nothing_heavy_and_registers_nothing',
    ];
    const log = conformance('test_sglang_radix.py', installedSite(dir).site, names);
    for (const name of names) passed(log, name);
  });

  it('vLLM connector of the second product: factory, preflight and live agree', () => {
    const log = conformance('test_vllm.py', installedSite(dir).site);
    for (const name of ['test_factory_builds_the_connector_with_three_arguments', 'test_manager_not_reachable_names_the_product_and_its_env', 'test_08_preflight_and_live_agree_on_config_roots', 'test_09_a_local_version_part_matches_the_pin', 'test_12_a_rejection_is_logged_once'])
      passed(log, name);
  });
});
