// Inline style properties through the CSSOM. The page's CSP (style-src with a nonce) refuses style
// attributes, and Lit's styleMap writes the attribute on its first render; a property set one at a
// time on element.style is not refused.

import { noChange } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

class StyleProps extends Directive {
  constructor(info: PartInfo) {
    super(info);
    if (info.type !== PartType.ELEMENT) throw new Error('styleProps goes in an element tag: <div ${styleProps({ top: "4px" })}>');
  }

  render(_props: Record<string, string>): unknown {
    return noChange;
  }

  /** Sets each property (CSS names: 'padding-left', '--cols') on every render; the same keys each time, so none is left to remove. */
  update(part: ElementPart, [props]: [Record<string, string>]): unknown {
    const style = (part.element as HTMLElement).style;
    for (const [name, value] of Object.entries(props)) style.setProperty(name, value);
    return noChange;
  }
}

export const styleProps = directive(StyleProps);
