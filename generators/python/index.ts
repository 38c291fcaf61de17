export { asciiJson, asciiJsonLines, pyJsonExpression, pyStringLiteral, tomlString } from './literal.js';
