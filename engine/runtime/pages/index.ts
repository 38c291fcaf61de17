export { PageFile, type PageProblem } from './page-file.js';
