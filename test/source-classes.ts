import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The classes declared in src, read from the source with TypeScript's parser: what each extends
 * and the codes it declares (a `code` property's literal, or a template such as `input.${string}`,
 * read as "input.x": a code of that family).
 */

const root = fileURLToPath(new URL("..", import.meta.url));

export interface SourceClass {
  file: string;
  base: string | undefined;
  abstract: boolean;
  codes: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The codes a type allows: literals, templates (their family), unions, and type aliases of src. */
function codesOfType(type: ts.TypeNode | undefined, aliases: Map<string, ts.TypeNode>): string[] {
  if (!type) return [];
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isTemplateLiteralTypeNode(type)) return [`${type.head.text}x`];
  if (ts.isUnionTypeNode(type)) return type.types.flatMap((t) => codesOfType(t, aliases));
  if (ts.isTypeReferenceNode(type)) return codesOfType(aliases.get(type.typeName.getText()), aliases);
  return [];
}

/** A class's `code`: a property or a constructor's parameter property, with its type or its literal. */
function codeNodes(node: ts.ClassDeclaration): (ts.TypeNode | ts.StringLiteral)[] {
  const found: (ts.TypeNode | ts.StringLiteral)[] = [];
  for (const member of node.members) {
    if (ts.isPropertyDeclaration(member) && member.name.getText() === "code") {
      if (member.initializer && ts.isStringLiteral(member.initializer)) found.push(member.initializer);
      if (member.type) found.push(member.type);
    }
    if (ts.isConstructorDeclaration(member)) {
      for (const parameter of member.parameters) {
        if (parameter.name.getText() === "code" && parameter.modifiers?.length && parameter.type) {
          found.push(parameter.type);
        }
      }
    }
  }
  return found;
}

/** Every class of src by name. */
export function sourceClasses(): Map<string, SourceClass> {
  const aliases = new Map<string, ts.TypeNode>();
  const declared: { node: ts.ClassDeclaration; file: string }[] = [];
  for (const file of sourceFiles(join(root, "src"))) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type);
      if (ts.isClassDeclaration(node) && node.name) declared.push({ node, file: relative(root, file) });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const classes = new Map<string, SourceClass>();
  for (const { node, file } of declared) {
    classes.set(node.name!.text, {
      file,
      base: node.heritageClauses
        ?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)
        ?.types[0]?.expression.getText(),
      abstract: node.modifiers?.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword) ?? false,
      codes: codeNodes(node).flatMap((n) => (ts.isStringLiteral(n) ? [n.text] : codesOfType(n, aliases))),
    });
  }
  return classes;
}

/** Whether `name` extends `ancestor`, directly or through other classes of src. */
export function descendsFrom(name: string, ancestor: string, classes: Map<string, SourceClass>): boolean {
  for (let at = classes.get(name)?.base; at !== undefined; at = classes.get(at)?.base) {
    if (at === ancestor) return true;
  }
  return false;
}

/** A class's own codes, or those of its nearest ancestor that declares any. */
export function codesFor(name: string, classes: Map<string, SourceClass>): string[] {
  for (let at: string | undefined = name; at !== undefined; at = classes.get(at)?.base) {
    const codes = classes.get(at)?.codes ?? [];
    if (codes.length > 0) return codes;
  }
  return [];
}
