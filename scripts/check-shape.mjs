// A step of `npm test`: fails when a function in src is over MAX_LINES lines long, or a value is
// cast through `unknown` (`x as unknown as T`), and prints each offender. A long function is a
// closure nobody can read whole; a double cast is a type the compiler was told to stop checking
// (a record that crossed the store should be parsed with its schema instead). Read with
// TypeScript's own parser, so comments and strings never count.
//
//   node scripts/check-shape.mjs [dir ...]   (default: the repository's src)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const MAX_LINES = 120;

function sourceFiles(dir) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** What a reader would call the function: its own name, or the name it is assigned to. */
function nameOf(node) {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  return "(anonymous)";
}

const isUnknown = (type) => type.kind === ts.SyntaxKind.UnknownKeyword;

/** Every function over MAX_LINES lines and every `as unknown as` in one file's text. */
export function offendersIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.end) - first + 1;
      if (lines > MAX_LINES) {
        found.push({ file, line: first, what: `${nameOf(node)} is ${lines} lines long (over ${MAX_LINES})` });
      }
    }
    if (ts.isAsExpression(node) && ts.isAsExpression(node.expression) && isUnknown(node.expression.type)) {
      found.push({
        file,
        line: lineOf(node.getStart(source)),
        what: "casts through unknown (as unknown as)",
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function offendersUnder(dirs) {
  return dirs.flatMap((dir) =>
    sourceFiles(dir).flatMap((file) => offendersIn(file, readFileSync(file, "utf8"))),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dirs = args.length > 0 ? args : [fileURLToPath(new URL("../src", import.meta.url))];
  const offenders = offendersUnder(dirs);
  for (const o of offenders) console.log(`${relative(process.cwd(), o.file)}:${o.line}: ${o.what}`);
  if (offenders.length > 0) {
    const where = dirs.map((dir) => relative(process.cwd(), dir) || ".").join(", ");
    console.log(`check-shape: ${offenders.length} offender(s) in ${where}`);
    process.exit(1);
  }
}
