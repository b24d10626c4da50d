// Type-checks examples with the workspace's compiler settings. Examples are often fragments that use a variable
// the surrounding prose introduced (`checkpointer`, `step`) or an export of the package they document without
// importing it. So a first pass finds the names the compiler cannot resolve: exports of an @graph package are
// imported from it, anything else is declared as `any`. The second pass must then report nothing: every import,
// export name, call signature and property of the @graph API that an example uses is checked.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { Example } from "./examples.js";

// "Cannot find name" (plain, did-you-mean, test globals) and "no value for the shorthand property".
const CANNOT_FIND_NAME = new Set([2304, 2552, 2582, 2593, 18004]);

function compilerOptions(root: string): ts.CompilerOptions {
  const file = path.join(root, "tsconfig.base.json");
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(file, ts.sys.readFile).config, ts.sys, root);
  // Fragments leave callback parameters untyped and values unused; that is not what the examples are checked for.
  return {
    ...parsed.options,
    noEmit: true,
    noImplicitAny: false,
    noUnusedLocals: false,
    noUnusedParameters: false,
    // The generated imports do not know which names are types.
    verbatimModuleSyntax: false,
  };
}

// Declarations of third-party packages an example documents but the repository does not install (see the file).
const STUBS = fileURLToPath(new URL("../stubs/opentelemetry.d.ts", import.meta.url));

function program(files: readonly string[], options: ts.CompilerOptions): ts.Program {
  return ts.createProgram({ rootNames: [STUBS, ...files], options });
}

function message(d: ts.Diagnostic): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (d.file === undefined || d.start === undefined) return text;
  const { line } = d.file.getLineAndCharacterOfPosition(d.start);
  return `line ${line + 1}: ${text}`;
}

/** The value and type names each @graph package exports. */
function exportsOf(packages: readonly string[], dir: string, options: ts.CompilerOptions): Map<string, Set<string>> {
  const file = path.join(dir, "exports.ts");
  fs.writeFileSync(file, packages.map((p, i) => `import * as p${i} from "${p}";\nvoid p${i};\n`).join(""));
  const prog = program([file], options);
  const checker = prog.getTypeChecker();
  const result = new Map<string, Set<string>>();
  const source = prog.getSourceFile(file)!;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const name = (statement.moduleSpecifier as ts.StringLiteral).text;
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    const names = new Set(symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((s) => s.name));
    result.set(name, names);
  }
  return result;
}

/** Imports and declarations that make a fragment's free names resolvable. */
function prelude(names: ReadonlySet<string>, own: string | undefined, exports: Map<string, Set<string>>): string {
  const imports = new Map<string, string[]>();
  const declared: string[] = [];
  for (const name of [...names].sort()) {
    const from =
      own !== undefined && exports.get(own)?.has(name) ? own : [...exports].find(([, set]) => set.has(name))?.[0];
    if (from !== undefined) imports.set(from, [...(imports.get(from) ?? []), name]);
    else declared.push(`declare const ${name}: any;\ntype ${name} = any;`);
  }
  const lines = [...imports].map(([from, list]) => `import { ${list.join(", ")} } from "${from}";`);
  return [...lines, ...declared].join("\n");
}

/** Relative imports of a package's own source (`../src/index.js`) stand for the package itself. */
function resolveOwnImports(code: string, own: string | undefined): string {
  if (own === undefined) return code;
  return code.replace(/from "(?:\.\.\/)+src\/index\.js"/g, `from "${own}"`);
}

export interface ExampleResult {
  readonly example: Example;
  readonly errors: readonly string[];
}

/** Checks every example; `dir` receives the generated files. */
export function checkExamples(root: string, examples: readonly Example[], dir: string): ExampleResult[] {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
  const options = compilerOptions(root);
  const packages = [...new Set(examples.map((e) => e.packageName).filter((p): p is string => p !== undefined))];
  const exports = exportsOf(packages.sort(), dir, options);
  const bodies = examples.map((e) => resolveOwnImports(e.code, e.packageName));
  const files = examples.map((_, i) => path.join(dir, `example-${String(i).padStart(3, "0")}.ts`));
  const write = (preludes: readonly string[]) =>
    files.forEach((file, i) => {
      // The prelude sits on the block's first line so reported line numbers match the block's own.
      fs.writeFileSync(file, `${preludes[i]!.replace(/\n/g, " ")}${bodies[i]}\nexport {};\n`);
    });

  write(files.map(() => ""));
  const first = program(files, options);
  const preludes = files.map((file, i) => {
    const names = new Set<string>();
    for (const d of ts.getPreEmitDiagnostics(first, first.getSourceFile(file))) {
      if (!CANNOT_FIND_NAME.has(d.code) || d.file === undefined || d.start === undefined) continue;
      names.add(d.file.text.slice(d.start, d.start + (d.length ?? 0)));
    }
    return prelude(names, examples[i]!.packageName, exports);
  });
  write(preludes);
  const second = program(files, options);
  return files.map((file, i) => ({
    example: examples[i]!,
    errors: ts.getPreEmitDiagnostics(second, second.getSourceFile(file)).map(message),
  }));
}
