export type { Diagnostic, Severity, SourceRange } from './diagnostic.js';
export { errorCount, sortDiagnostics } from './diagnostic.js';
export { CATALOGUE, diagnose, type CatalogueKey, type DiagnosticDefinition, type DiagnosticSite } from './catalogue.js';
