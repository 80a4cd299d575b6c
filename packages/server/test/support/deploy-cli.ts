import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, type TestServer } from './harness.js';

const run = promisify(execFile);
const CLI = new URL('../../../../node_modules/auth0-deploy-cli/lib/index.js', import.meta.url).pathname;
const PROBE = new URL('./deploy-cli-probe.mjs', import.meta.url).pathname;

/** A server the platform's deploy CLI talks to: its config file and the CA file the child process trusts. */
export interface DeployTarget {
  config: string;
  ca: string;
}

/**
 * Writes the CLI's config for `server` (its admin application, no exclusions) into `dir`. The CLI builds
 * https://{AUTH0_DOMAIN}/... URLs only, so the server must listen over TLS with `cert`, which the child trusts
 * through NODE_EXTRA_CA_CERTS.
 */
export function deployTarget(server: TestServer, cert: Buffer | string, dir: string, name: string): DeployTarget {
  const config = join(dir, `${name}.config.json`);
  const ca = join(dir, `${name}.ca.pem`);
  writeFileSync(ca, cert);
  writeFileSync(
    config,
    JSON.stringify({ AUTH0_DOMAIN: new URL(server.url).host, AUTH0_CLIENT_ID: ADMIN_CLIENT_ID, AUTH0_CLIENT_SECRET: ADMIN_CLIENT_SECRET, AUTH0_ALLOW_DELETE: false }),
  );
  return { config, ca };
}

async function node(target: DeployTarget, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { env: { ...process.env, NODE_EXTRA_CA_CERTS: target.ca }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${args.slice(1, 2).join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** `a0deploy export` of the whole tenant; answers the CLI's output (it fails the test when the CLI fails). */
export const exportTenant = (target: DeployTarget, format: 'yaml' | 'directory', folder: string) =>
  node(target, [CLI, 'export', '--config_file', target.config, '--format', format, '--output_folder', folder]);

/** `a0deploy import` of a YAML file or a directory. */
export const importTenant = (target: DeployTarget, input: string) => node(target, [CLI, 'import', '--config_file', target.config, '--input_file', input]);

/** What one family of the CLI did in an import run by deploy-cli-probe.mjs. */
export interface FamilyOutcome {
  ok: boolean;
  stage: 'validate' | 'processChanges';
  statusCode?: number;
  message?: string;
  created?: number;
  updated?: number;
}

/** The CLI's import of `input`, family by family (see deploy-cli-probe.mjs): each family's outcome. */
export async function importFamilyByFamily(target: DeployTarget, input: string): Promise<Record<string, FamilyOutcome>> {
  const output = await node(target, [PROBE, target.config, input]);
  const line = output.split('\n').find((text) => text.startsWith('{'));
  if (!line) throw new Error(`the probe printed no outcome:\n${output}`);
  return JSON.parse(line) as Record<string, FamilyOutcome>;
}
