// Runs the platform's deploy CLI (npm auth0-deploy-cli) import of one tenant file, family by family, and prints
// what each family did as JSON: `a0deploy import` stops at the first family that fails, while a test of a whole
// platform export must see every family's outcome. The CLI's own code does all the work (its context reads the
// file, its handlers run in its order and pass their results on to the next ones, as `import` does); only a
// family's failure is recorded instead of ending the run. The CLI's schema check (ajv, ~40 s of CPU) is left
// out: its handlers' own checks still run.
// Usage: node deploy-cli-probe.mjs <config.json> <tenant.yaml or directory>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

// The CLI is CommonJS and exports its context and handlers only as files of its package.
const require = createRequire(new URL('../../../../node_modules/auth0-deploy-cli/lib/', import.meta.url));
const { setupContext } = require('./context');
const Auth0 = require('./tools/auth0').default;
const logger = require('./logger').default;

async function main() {
  const [configFile, input] = process.argv.slice(2);
  const config = { ...JSON.parse(readFileSync(configFile, 'utf8')), AUTH0_INPUT_FILE: input };
  const context = await setupContext(config, 'import');
  await context.loadAssetsFromLocal();
  logger.level = 'error';
  const tool = new Auth0(context.mgmtClient, context.assets, (key) => config[key]);
  const outcomes = {};
  for (const handler of tool.handlers) {
    const prototype = Object.getPrototypeOf(handler);
    for (const stage of ['validate', 'processChanges']) {
      const run = prototype[stage];
      if (typeof run !== 'function' || run.probed) continue;
      const probed = async function (assets) {
        const outcome = (outcomes[this.type] ??= { stage, ok: true });
        if (!outcome.ok) return undefined;
        outcome.stage = stage;
        try {
          return await run.call(this, assets);
        } catch (error) {
          const body = error?.body ?? error?.originalError?.response?.body;
          Object.assign(outcome, { ok: false, statusCode: error?.statusCode, message: body?.message ?? String(error?.message ?? error) });
          return undefined;
        }
      };
      probed.probed = true;
      prototype[stage] = probed;
    }
  }
  await tool.runStage('validate');
  await tool.runStage('processChanges');
  for (const handler of tool.handlers) {
    const outcome = outcomes[handler.type];
    if (outcome) Object.assign(outcome, { created: handler.created, updated: handler.updated, deleted: handler.deleted });
  }
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
