import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** A function longer than this no longer reads on one screen: split it by what it does. */
const LONGEST = 80;

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface FunctionLength {
  where: string;
  lines: number;
}

/**
 * Every function of one module (declarations, methods, constructors, accessors, arrows and function expressions) with its
 * length in lines, first line to last; a nested function counts inside the one that holds it as well as on its own.
 */
function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${file}:${first + 1} ${nameOf(node)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The function's own name, or the name of what it is assigned to or passed to, for a report a reader can find. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(passed to ${parent.expression.getText()})`;
  return '(anonymous)';
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

describe('function length', () => {
  it(`keeps every function of src/ at ${LONGEST} lines or fewer`, () => {
    const tooLong = sourceFiles('src')
      .flatMap((file) => functionLengths(file, readFileSync(join(root, file), 'utf8')))
      .filter(({ lines }) => lines > LONGEST)
      .map(({ where, lines }) => `${where}: ${lines} lines`);
    expect(tooLong).toEqual([]);
  });

  it('measures a function from its first line to its last, nested ones inside it and on their own', () => {
    const text = ['export function outer(): void {', '  const inner = () => {', '    return 1;', '  };', '  inner();', '}', ''].join('\n');
    expect(functionLengths('src/example.ts', text)).toEqual([
      { where: 'src/example.ts:1 outer', lines: 6 },
      { where: 'src/example.ts:2 inner', lines: 3 },
    ]);
  });
});
