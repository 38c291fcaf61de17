import type { AdapterTemplate } from './template.js';
import { sglangTemplate } from './sglang/template.js';
import { vllmTemplate } from './vllm/template.js';

/**
 * The template table: the one place engine names appear. A runtime engine contract whose
 * `name` has no entry gets no package (and a warning).
 */
export const ADAPTER_TEMPLATES: Readonly<Record<string, AdapterTemplate>> = {
  vllm: vllmTemplate,
  sglang: sglangTemplate,
};
