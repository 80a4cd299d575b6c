import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw, type Html } from '../src/text/html.js';
import { escapeXml, rawXml, xml } from '../src/text/xml.js';

const HOSTILE = `"><script>alert('x')</script>&amp;`;
const ESCAPED = '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;';

describe('html tagged template', () => {
  it('escapes every interpolated text, in text and in attributes, and leaves its own markup alone', () => {
    const fragment = html`<p title="${HOSTILE}">${HOSTILE}</p>`;
    expect(String(fragment)).toBe(`<p title="${ESCAPED}">${ESCAPED}</p>`);
    expect(escapeHtml(HOSTILE)).toBe(ESCAPED);
  });

  it('writes numbers as they are', () => {
    expect(String(html`<td>${42}</td><td>${-1.5}</td>`)).toBe('<td>42</td><td>-1.5</td>');
  });

  it('writes raw() markup without escaping', () => {
    expect(String(html`<style>${raw('a>b{color:"red"}')}</style>`)).toBe('<style>a>b{color:"red"}</style>');
  });

  it('does not escape a nested fragment a second time', () => {
    const inner = html`<b>${'Tom & Jerry'}</b>`;
    const outer = html`<p>${inner}</p>`;
    expect(String(outer)).toBe('<p><b>Tom &amp; Jerry</b></p>');
    expect(String(html`<div>${outer}</div>`)).toBe('<div><p><b>Tom &amp; Jerry</b></p></div>');
  });

  it('joins arrays without a separator, escaping their texts and keeping their fragments, nested arrays included', () => {
    const items = ['a<b', 'c&d'].map((text) => html`<li>${text}</li>`);
    expect(String(html`<ul>${items}</ul>`)).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
    expect(String(html`${['<x>', html`<y>`, [1, ['<z>']]]}`)).toBe('&lt;x&gt;<y>1&lt;z&gt;');
    expect(String(html`<ul>${[]}</ul>`)).toBe('<ul></ul>');
  });

  it('writes nothing for null, undefined and false, so that optional parts can be conditions', () => {
    const missing: string | undefined = undefined;
    expect(String(html`[${null}][${missing}][${false}]`)).toBe('[][][]');
    const flag = (on: boolean) => String(html`<input${on && html` checked`}>`);
    expect(flag(true)).toBe('<input checked>');
    expect(flag(false)).toBe('<input>');
    // An empty string is text like any other: it writes nothing too.
    expect(String(html`[${''}]`)).toBe('[]');
  });

  it('keeps the template text as written, line breaks included', () => {
    expect(String(html`<p>
a ${'b'}</p>`)).toBe('<p>\na b</p>');
    expect(String(html``)).toBe('');
    expect(String(html`${'<only>'}`)).toBe('&lt;only&gt;');
  });

  it('lets nothing but html and raw make markup (the type refuses strings and look-alikes)', () => {
    // @ts-expect-error a plain string is not markup
    const fromString: Html = '<b>';
    // @ts-expect-error neither is an object that only looks like one
    const lookAlike: Html = { toString: () => '<b>' };
    expect([fromString, lookAlike]).toHaveLength(2);
    // At run time a look-alike (or anything else the type refuses) is not written at all.
    expect(() => html`${lookAlike}`).toThrow(TypeError);
    // @ts-expect-error true would print "true"
    expect(() => html`${true}`).toThrow(TypeError);
  });
});

describe('xml tagged template', () => {
  it('escapes text and attribute values with the same five references', () => {
    expect(String(xml`<a b="${HOSTILE}">${HOSTILE}</a>`)).toBe(`<a b="${ESCAPED}">${ESCAPED}</a>`);
    expect(escapeXml(HOSTILE)).toBe(ESCAPED);
  });

  it('nests fragments, joins arrays, writes rawXml as it is and nothing for null, undefined and false', () => {
    const values = ['1', '<2>'].map((value) => xml`<v>${value}</v>`);
    const optional: string | undefined = undefined;
    const document = xml`<r${optional && xml` id="${optional}"`}${false}${null}>${values}${rawXml('<signed/>')}</r>`;
    expect(String(document)).toBe('<r><v>1</v><v>&lt;2&gt;</v><signed/></r>');
    expect(String(xml`<w>${document}</w>`)).toBe('<w><r><v>1</v><v>&lt;2&gt;</v><signed/></r></w>');
  });

  it('keeps HTML and XML markup apart', () => {
    // @ts-expect-error an HTML fragment is not XML
    expect(() => xml`<a>${html`<b/>`}</a>`).toThrow(TypeError);
    // @ts-expect-error nor the other way round
    expect(() => html`<a>${xml`<b/>`}</a>`).toThrow(TypeError);
  });
});
