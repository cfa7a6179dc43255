// Shared component styles. Every colour comes from a VS Code theme variable, with a Light Modern
// value as the fallback for the standalone report (styles.css supplies dark and high-contrast
// values there). High-contrast themes define --vscode-contrastBorder and nothing else does, so
// outlines drawn with it appear only where the theme asks for them.

import { css } from 'lit';

export const tokens = css`
  :host {
    --pi-fg: var(--vscode-foreground, #3b3b3b);
    --pi-muted: var(--vscode-descriptionForeground, #717171);
    --pi-bg: var(--vscode-editor-background, #ffffff);
    --pi-side-bg: var(--vscode-sideBar-background, #f8f8f8);
    --pi-border: var(--vscode-panel-border, #e5e5e5);
    --pi-focus: var(--vscode-focusBorder, #005fb8);
    --pi-hc: var(--vscode-contrastBorder, transparent);
    --pi-hc-active: var(--vscode-contrastActiveBorder, transparent);
    --pi-hover: var(--vscode-list-hoverBackground, #f2f2f2);
    --pi-selected: var(--vscode-list-activeSelectionBackground, #e4e6f1);
    --pi-selected-fg: var(--vscode-list-activeSelectionForeground, inherit);
    --pi-inactive-selected: var(--vscode-list-inactiveSelectionBackground, #e4e6f1);
    --pi-input-bg: var(--vscode-input-background, var(--pi-bg));
    --pi-input-fg: var(--vscode-input-foreground, var(--pi-fg));
    --pi-input-border: var(--vscode-input-border, var(--vscode-dropdown-border, var(--pi-border)));
    --pi-code-bg: var(--vscode-textCodeBlock-background, #f2f2f2);
    --pi-link: var(--vscode-textLink-foreground, #005fb8);
    --pi-error: var(--vscode-editorError-foreground, #e51400);
    --pi-warning: var(--vscode-editorWarning-foreground, #bf8803);
    --pi-info: var(--vscode-editorInfo-foreground, #1a85ff);
    --pi-ok: var(--vscode-testing-iconPassed, #388a34);
    --pi-inserted: var(--vscode-diffEditor-insertedTextBackground, rgba(156, 204, 44, 0.25));
    --pi-removed: var(--vscode-diffEditor-removedTextBackground, rgba(255, 0, 0, 0.2));
    --pi-mono: var(--vscode-editor-font-family, ui-monospace, 'SF Mono', Menlo, Consolas, monospace);
    --pi-mono-size: var(--vscode-editor-font-size, 12px);
    --pi-kind-memory: var(--vscode-charts-purple, #652d90);
    --pi-kind-plugin: var(--vscode-charts-blue, #1a85ff);
    --pi-kind-gateway: var(--vscode-charts-orange, #d18616);
    --pi-kind-surface: var(--vscode-charts-green, #388a34);
    --pi-kind-multimodal: var(--vscode-charts-yellow, #bf8803);
    --pi-kind-placeholder: var(--vscode-charts-red, #e51400);
    color: var(--pi-fg);
    font-family: var(--vscode-font-family, system-ui, -apple-system, 'Segoe UI', Ubuntu, sans-serif);
    font-size: var(--vscode-font-size, 13px);
    font-weight: var(--vscode-font-weight, normal);
    line-height: 1.4;
    box-sizing: border-box;
  }
  /* High-contrast themes leave list backgrounds unset and mark selection with borders instead: a
     light fallback there would put white text on a light background. */
  :host-context(body.vscode-high-contrast) {
    --pi-hover: var(--vscode-list-hoverBackground, transparent);
    --pi-selected: var(--vscode-list-activeSelectionBackground, transparent);
    --pi-inactive-selected: var(--vscode-list-inactiveSelectionBackground, transparent);
  }
  *, *::before, *::after { box-sizing: inherit; }
  :focus { outline: none; }
  :focus-visible { outline: 1px solid var(--pi-focus); outline-offset: -1px; }

  .k-memory { --k: var(--pi-kind-memory); }
  .k-plugin { --k: var(--pi-kind-plugin); }
  .k-gateway-note { --k: var(--pi-kind-gateway); }
  .k-surface-note { --k: var(--pi-kind-surface); }
  .k-multimodal-note { --k: var(--pi-kind-multimodal); }
  .k-placeholder { --k: var(--pi-kind-placeholder); }

  /* A label chip: tinted background, text and border in the kind's colour. */
  .chip {
    display: inline-block;
    padding: 0 4px;
    border: 1px solid color-mix(in srgb, var(--k, var(--pi-muted)) 55%, transparent);
    border-radius: 3px;
    background: color-mix(in srgb, var(--k, var(--pi-muted)) 14%, transparent);
    color: var(--k, var(--pi-muted));
    font-family: var(--vscode-font-family, system-ui, sans-serif);
    font-size: 10px;
    font-weight: 600;
    line-height: 14px;
    letter-spacing: 0.02em;
    white-space: nowrap;
    vertical-align: 1px;
    user-select: none;
  }
  .chip.solid { background: var(--k); border-color: var(--k); color: var(--pi-bg); }
  .chip.break { --k: var(--pi-error); }
  .chip.warn { --k: var(--pi-warning); }
  .chip.ok { --k: var(--pi-ok); }
  .chip.compaction { --k: var(--pi-info); }

  .muted { color: var(--pi-muted); }

  h2.section {
    margin: 0;
    font-size: 11px;
    font-weight: 700;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: var(--vscode-sideBarTitle-foreground, var(--pi-fg));
  }

  .sr-only {
    position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
  }

  button.plain {
    font: inherit; color: inherit; background: none; border: 0; padding: 0; margin: 0;
    text-align: inherit; cursor: pointer;
  }
  button.link { font: inherit; background: none; border: 0; padding: 0; color: var(--pi-link); cursor: pointer; }
  button.link:hover { text-decoration: underline; }
`;

/** A page of figures in a table (a recorded transcript, an agent's project): its heading, lines and bars. */
export const figuresPage = css`
  :host { display: block; padding: 6px 12px 16px; overflow: auto; height: 100%; box-sizing: border-box; }
  h1 { margin: 0; font-size: 13px; font-weight: 600; overflow-wrap: anywhere; }
  h1 .of { font-weight: 400; color: var(--pi-muted); }
  .line { display: flex; flex-wrap: wrap; gap: 2px 14px; color: var(--pi-muted); margin-top: 3px; }
  .line b { color: var(--pi-fg); font-weight: 600; }
  table { border-collapse: collapse; width: 100%; margin-top: 4px; font-variant-numeric: tabular-nums; }
  th { text-align: left; font-weight: 600; color: var(--pi-muted); padding: 2px 6px; border-bottom: 1px solid var(--pi-border); }
  td { padding: 1px 6px; vertical-align: top; }
  td.n { text-align: right; white-space: nowrap; }
  .bar { display: inline-block; width: 80px; height: 8px; background: var(--pi-hover); vertical-align: middle; margin-right: 4px; }
  .bar span { display: block; height: 100%; background: var(--pi-info); }
`;
