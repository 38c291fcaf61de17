export type { Diagnostic, Severity, SourceRange } from './diagnostic.js';
export { errorCount, sortDiagnostics } from './diagnostic.js';
export { CATALOGUE, diagnose, type CatalogueKey, type DiagnosticSite } from './catalogue.js';
export { def, type DiagnosticDefinition } from './definition.js';
