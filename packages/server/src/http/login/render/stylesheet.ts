import { HEX_COLOR, type BrandingSettings } from '../../../services/branding.js';

/** The hosted pages' own styles: one readable column, visible focus, sufficient contrast. */
export const STYLESHEET = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#111827}
.widget{box-sizing:border-box;width:100%;max-width:400px;margin:2rem 1rem;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 2px 12px rgba(0,0,0,.12)}
header{text-align:center}h1{font-size:1.5rem;margin:.5rem 0}.logo{max-height:52px;max-width:100%}
.field{margin:1rem 0}label{display:block;font-weight:600;margin-bottom:.25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;border:1px solid #6b7280;border-radius:4px;font:inherit}
input[aria-invalid=true]{border-color:#b91c1c}
button{width:100%;padding:.7rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{margin-top:.5rem;background:transparent;color:#1d4ed8;border:1px solid #1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{border-left:4px solid #b91c1c;background:#fef2f2;color:#7f1d1d;padding:.5rem 1rem;margin:1rem 0}
.password-rules{font-size:.875rem;margin:-.5rem 0 1rem}.password-rules p{margin:0}.password-rules ul{margin:.25rem 0;padding-left:1.25rem}
.link{text-align:center;margin:.75rem 0}a{color:#1d4ed8}
.separator{text-align:center;color:#6b7280;margin:1rem 0 .5rem}.federated button{display:flex;align-items:center;justify-content:center;gap:.5rem}.federated img{width:20px;height:20px}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f9fafb}.widget{background:#1f2937}a{color:#93c5fd}.error{background:#450a0a;color:#fecaca}button.secondary{color:#93c5fd;border-color:#93c5fd}}
`;

/**
 * The tenant's branding colours over our stylesheet: the accent colour on buttons (filled, or outlined for the
 * secondary ones), the page background in light and dark mode alike. Undefined when no colour is set. Each colour is
 * checked again here, since it is written into a style element unescaped.
 */
export function brandingStyle(branding: BrandingSettings | undefined): string | undefined {
  const color = (value: string | undefined) => (value !== undefined && HEX_COLOR.test(value) ? value : undefined);
  const primary = color(branding?.colors?.primary);
  const background = color(branding?.colors?.page_background);
  const rules = [
    primary && `button{background:${primary}}button.secondary{background:transparent;color:${primary};border-color:${primary}}`,
    background && `body{background:${background}}`,
  ].filter(Boolean);
  return rules.length > 0 ? rules.join('') : undefined;
}
