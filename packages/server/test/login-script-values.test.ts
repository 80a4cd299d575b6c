import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fillScript, scriptLiteral, scriptText } from '../src/http/login/render/script-values.js';
import { HOSTILE_SCRIPT_VALUE } from './support/hostile-values.js';

/** Runs a script in a fresh context with `value` in scope; what it set as `seen`, and whether anything escaped. */
function run(script: string, value: unknown = HOSTILE_SCRIPT_VALUE): { seen?: unknown; pwned?: unknown } {
  const sandbox: { seen?: unknown; pwned?: unknown; value: unknown } = { value };
  runInNewContext(script, sandbox);
  return { seen: sandbox.seen, pwned: sandbox.pwned };
}

const lookup = (value: unknown) => (path: string) => (path === 'v' ? value : undefined);

describe('placeholders in configured scripts', () => {
  const quoted: Record<string, string> = {
    "single quotes": "seen = '{{ v }}';",
    'double quotes': 'seen = "{{v}}";',
    'a template literal': 'seen = `{{v}}`;',
    'a template expression': 'seen = `${ {{v}} }`;',
    'a template nested in an expression': 'seen = `(${ `[${ {{v}} }]` })`.slice(2, -2);',
    'an expression': 'seen = {{v}};',
    'an object literal': 'seen = { "k": {{ v }} }.k;',
    'a concatenation': "seen = '' + {{v}} + \"\";",
    'code after a division': 'var half = (4) / 2; seen = "{{v}}";',
  };
  for (const [where, script] of Object.entries(quoted)) {
    it(`keeps the exact value and runs nothing in ${where}`, () => {
      const filled = fillScript(script, lookup(HOSTILE_SCRIPT_VALUE));
      expect(filled).not.toMatch(/[<>\u2028\u2029\n]|globalThis\.pwned/);
      expect(run(filled)).toEqual({ seen: HOSTILE_SCRIPT_VALUE, pwned: undefined });
    });
  }

  it('writes the value as text in comments and regular expressions, where it cannot end them', () => {
    expect(run(fillScript('// {{v}}\nseen = "line";', lookup(HOSTILE_SCRIPT_VALUE)))).toEqual({ seen: 'line', pwned: undefined });
    expect(run(fillScript('/* {{v}} */ seen = "block";', lookup(HOSTILE_SCRIPT_VALUE)))).toEqual({ seen: 'block', pwned: undefined });
    expect(run(fillScript('seen = /^{{v}}$/.test(value);', lookup(HOSTILE_SCRIPT_VALUE)))).toEqual({ seen: true, pwned: undefined });
  });

  it('writes objects (submitted form data) as literals in code and as JSON text in strings', () => {
    const form = { username: HOSTILE_SCRIPT_VALUE, 'we"ird': ['1', 2, true, null] };
    expect(run(fillScript('seen = {{v}};', lookup(form)))).toEqual({ seen: form, pwned: undefined });
    const asText = run(fillScript("seen = JSON.parse('{{v}}');", lookup(form)));
    expect(asText).toEqual({ seen: form, pwned: undefined });
    expect(run(fillScript('seen = [{{missing}}, "{{missing}}"];', lookup(undefined)))).toEqual({ seen: [null, ''], pwned: undefined });
  });

  it('stays inert even where a placeholder is written in the wrong form (a misread script)', () => {
    const slots = ["seen = '#';", 'seen = "#";', 'seen = `#`;', 'seen = `${#}`;', 'seen = #;', 'seen = 1; // #', 'seen = /#/;', 'seen = [#];'];
    for (const slot of slots) {
      for (const written of [scriptText(HOSTILE_SCRIPT_VALUE), scriptLiteral(HOSTILE_SCRIPT_VALUE), scriptLiteral({ a: HOSTILE_SCRIPT_VALUE })]) {
        let outcome: { pwned?: unknown } = {};
        try {
          outcome = run(slot.replace('#', () => written));
        } catch (error) {
          // A syntax or reference error is inert: the script does not run at all (errors of another realm).
          expect(String(error)).toMatch(/^(SyntaxError|ReferenceError|TypeError)/);
        }
        expect(outcome.pwned, `${slot} with ${written}`).toBeUndefined();
      }
    }
  });
});
