export { planAdapters, wheelRules, type AdapterPackage, type AdapterPlan, type SkippedEngine } from './plan.js';
export { emitPackage, packageMetadata, packageModules, pyprojectToml, summary, type GeneratedFile, type PackageMetadata } from './emit.js';
export { ADAPTER_TEMPLATES } from './templates.js';
export { REGISTRY_HOOK_TYPES, type AdapterTemplate, type TemplateContext, type TemplateData } from './template.js';
export { signatureFingerprint } from './signature.js';
export { packageReadme } from './readme.js';
