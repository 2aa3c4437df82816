import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One function of a source file and how many lines its body spans. */
export interface FunctionLength {
  /** `src/server/build-server.ts:42 buildServer` */
  where: string;
  lines: number;
}

/** A readable name for a function node: its own, or that of what it is assigned to. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return "(anonymous)";
}

/**
 * The length in lines of every function body (declarations, methods, accessors, arrows and
 * function expressions) in the `.ts` files under `dir`, read with TypeScript's parser: from
 * the line of the body's `{` to that of its `}`. An arrow with an expression body counts its
 * expression. Nested functions count on their own and inside their parent.
 */
export function functionLengths(root: string, dir: string): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of tsFiles(path.join(root, dir))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const body = node.body as ts.Node;
        const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
        out.push({ where: `${rel}:${first + 1} ${nameOf(node)}`, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".generated.ts") ? [full] : [];
  });
}
