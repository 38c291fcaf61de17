export { planAdapters, wheelRules, type AdapterPackage, type AdapterPlan } from './plan.js';
export { emitPackage, packageModules, pyprojectToml, summary, type GeneratedFile } from './emit.js';
export { ADAPTER_TEMPLATES } from './templates.js';
export { REGISTRY_HOOK_TYPES, type AdapterTemplate, type TemplateContext, type TemplateData } from './template.js';
export { signatureFingerprint } from './signature.js';
export { packageReadme } from './readme.js';
