import { readFile, realpath } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { build, type Message, type Plugin } from 'esbuild';

/** A declared npm dependency, as the platform takes it (`registry_url` is kept but not used: packages come from the modules directory). */
export interface ActionDependency {
  name: string;
  version: string;
  registry_url?: string;
}

/** One reason a build failed, in the platform's `errors` shape. */
export interface ActionBuildError {
  id: string;
  msg: string;
}

export type ActionBuild = { status: 'built'; code: string } | { status: 'failed'; errors: ActionBuildError[] };

export interface ActionBuilderOptions {
  /** LATCHKEY_ACTIONS_MODULES_DIR: packages are read from `<modulesDir>/node_modules` only. */
  modulesDir: string | undefined;
  /** The largest runnable module kept, in characters (default 5 MiB). */
  maxBundleChars?: number;
}

/** npm package names: an optional scope, then one path segment that starts with a letter or digit (never `.`/`..`). */
export const NPM_PACKAGE_NAME = /^(?:@[A-Za-z0-9][A-Za-z0-9._~-]*\/)?[A-Za-z0-9][A-Za-z0-9._~-]*$/;

/** The file name the action's code is given in the build (its messages and stack traces name it). */
const ENTRY_FILE = 'action.js';

/** The package a bare specifier names: `lodash/fp` -> `lodash`, `@scope/pkg/sub` -> `@scope/pkg`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function isInside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Every declared dependency must be installed, at the declared version unless that is `latest`. */
async function checkDependencies(modulesDir: string | undefined, dependencies: readonly ActionDependency[]): Promise<ActionBuildError[]> {
  if (dependencies.length === 0) return [];
  if (modulesDir === undefined) {
    return [{ id: 'dependencies_unavailable', msg: 'This server has no modules directory (LATCHKEY_ACTIONS_MODULES_DIR is unset): actions cannot have dependencies.' }];
  }
  const errors: ActionBuildError[] = [];
  for (const dependency of dependencies) {
    if (!NPM_PACKAGE_NAME.test(dependency.name)) {
      errors.push({ id: 'invalid_dependency', msg: `"${dependency.name}" is not an npm package name.` });
      continue;
    }
    let installed: unknown;
    try {
      installed = (JSON.parse(await readFile(join(modulesDir, 'node_modules', dependency.name, 'package.json'), 'utf8')) as { version?: unknown }).version;
    } catch {
      errors.push({ id: 'module_not_installed', msg: `The dependency ${dependency.name} is not installed in the modules directory (LATCHKEY_ACTIONS_MODULES_DIR).` });
      continue;
    }
    if (dependency.version !== 'latest' && installed !== dependency.version) {
      errors.push({
        id: 'module_version_mismatch',
        msg: `The dependency ${dependency.name} is declared at version ${dependency.version}, but version ${String(installed)} is installed in the modules directory.`,
      });
    }
  }
  return errors;
}

/**
 * What the action's own code may import: its declared dependencies (and files inside them), resolved from the
 * modules directory; Node's built-ins are left as `require` calls, which the sandbox's `require` refuses at run
 * time (no built-in is ever bundled or reachable). Whatever a dependency imports must resolve inside
 * `<modulesDir>/node_modules` too, checked on the real path of every file loaded (no escape through `..` or a
 * symbolic link).
 */
function restrictImports(entry: string, declared: ReadonlySet<string>, nodeModules: string | undefined): Plugin {
  return {
    name: 'latchkey-action-imports',
    setup(bundle) {
      bundle.onResolve({ filter: /.*/ }, (args) => {
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (args.importer !== entry) return undefined;
        const specifier = args.path;
        if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.split('/').includes('..')) {
          return { errors: [{ text: `"${specifier}" cannot be imported: an action can only require its declared dependencies.`, detail: 'invalid_import' }] };
        }
        const name = packageOf(specifier);
        if (!declared.has(name)) {
          return { errors: [{ text: `The module ${name} is not declared: add it to the action's dependencies.`, detail: 'undeclared_module' }] };
        }
        return undefined;
      });
      bundle.onLoad({ filter: /.*/ }, async (args) => {
        const real = await realpath(args.path).catch(() => args.path);
        if (nodeModules === undefined || !isInside(real, nodeModules)) {
          return { errors: [{ text: 'A dependency imports a file outside the modules directory.', detail: 'invalid_import' }] };
        }
        return undefined;
      });
    },
  };
}

function describe(message: Message): ActionBuildError {
  const id = typeof message.detail === 'string' ? message.detail : message.location?.file === ENTRY_FILE ? 'syntax_error' : 'build_error';
  const where = message.location
    ? message.location.file === ENTRY_FILE
      ? ` (line ${message.location.line}, column ${message.location.column + 1})`
      : ` (in ${message.location.file}, line ${message.location.line})`
    : '';
  return { id, msg: `${message.text.replace(/\.$/, '')}${where}.` };
}

/**
 * Builds an action's draft at create and update: esbuild bundles its code (the entry, given on stdin) and its
 * declared dependencies into one CommonJS module, which is what a version runs. An action without dependencies
 * is only parsed (the same build, which reads no file), and kept as written unless it uses ES module syntax, so
 * that the line numbers of its stack traces are the tenant's own.
 */
export function actionBuilder(options: ActionBuilderOptions) {
  const maxBundleChars = options.maxBundleChars ?? 5 * 1024 * 1024;

  return {
    async build(code: string, dependencies: readonly ActionDependency[]): Promise<ActionBuild> {
      const missing = await checkDependencies(options.modulesDir, dependencies);
      if (missing.length > 0) return { status: 'failed', errors: missing };
      const dir = options.modulesDir ?? tmpdir();
      const nodeModules = options.modulesDir === undefined ? undefined : await realpath(join(options.modulesDir, 'node_modules')).catch(() => undefined);
      const entry = join(dir, ENTRY_FILE);
      let result;
      try {
        result = await build({
          stdin: { contents: code, resolveDir: dir, sourcefile: ENTRY_FILE, loader: 'js' },
          absWorkingDir: dir,
          bundle: true,
          write: false,
          metafile: true,
          format: 'cjs',
          // `node`: built-ins stay external (`require` calls the sandbox refuses); `main` fields as Node resolves them.
          platform: 'node',
          target: 'node20',
          define: { 'process.env.NODE_ENV': '"production"' },
          logLevel: 'silent',
          plugins: [restrictImports(entry, new Set(dependencies.map((dependency) => dependency.name)), nodeModules)],
        });
      } catch (error) {
        const messages = (error as { errors?: Message[] }).errors;
        if (!Array.isArray(messages) || messages.length === 0) throw error;
        return { status: 'failed', errors: messages.map(describe) };
      }
      const usesModuleSyntax = result.metafile.inputs[ENTRY_FILE]?.format === 'esm';
      const bundled = dependencies.length === 0 && !usesModuleSyntax ? code : (result.outputFiles[0]?.text ?? '');
      if (bundled.length > maxBundleChars) {
        return { status: 'failed', errors: [{ id: 'bundle_too_large', msg: `The action with its dependencies is ${bundled.length} characters; at most ${maxBundleChars} are allowed.` }] };
      }
      return { status: 'built', code: bundled };
    },
  };
}

export type ActionBuilder = ReturnType<typeof actionBuilder>;
