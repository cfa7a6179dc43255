// The open inspector views (src/extension/viewRegistry.ts): which one is active, which one on a
// file the user saw last, and who hears of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ViewRegistry } from '../../src/extension/viewRegistry';

interface View {
  uri: string;
  name: string;
}
const view = (name: string, uri: string): View => ({ name, uri });

describe('view registry', () => {
  it('the view on a file is the one shown last; a hidden one does not move forward', () => {
    const views = new ViewRegistry<View>();
    const [a1, b, a2] = [view('a1', 'file:///a'), view('b', 'file:///b'), view('a2', 'file:///a')];
    views.track(a1, true, true);
    views.track(b, true, true);
    views.track(a2, true, true);
    assert.equal(views.on('file:///a'), a2);
    views.track(a1, true, true);
    assert.equal(views.on('file:///a'), a1);
    views.track(a2, false, false);
    assert.equal(views.on('file:///a'), a1, 'hidden: stays where it was');
    views.closed(a1);
    assert.equal(views.on('file:///a'), a2);
    assert.equal(views.on('file:///c'), undefined);
  });

  it('the active view follows focus; listeners hear each change, and of what the active view shows only', () => {
    const views = new ViewRegistry<View>();
    const heard: (string | undefined)[] = [];
    const listening = views.onDidChangeActive((v) => heard.push(v?.name));
    const [a, b] = [view('a', 'file:///a'), view('b', 'file:///b')];
    views.track(a, true, true);
    views.track(b, true, false);
    assert.equal(views.active, a);
    views.changed(b);
    views.changed(a);
    views.track(a, true, false);
    assert.equal(views.active, undefined);
    views.track(b, true, true);
    views.closed(b);
    assert.equal(views.active, undefined);
    assert.deepEqual(heard, ['a', 'a', undefined, 'b', undefined]);
    listening.dispose();
    views.track(a, true, true);
    assert.equal(heard.length, 5, 'a disposed listener hears nothing');
  });

  it('a view closed twice, or never tracked, changes nothing; dispose forgets every view and listener', () => {
    const views = new ViewRegistry<View>();
    const a = view('a', 'file:///a');
    let heard = 0;
    views.onDidChangeActive(() => heard++);
    views.closed(a);
    views.track(a, true, false);
    views.closed(a);
    views.closed(a);
    assert.equal(heard, 0);
    views.track(a, true, true);
    views.dispose();
    assert.equal(views.active, undefined);
    assert.equal(views.on('file:///a'), undefined);
    views.track(a, true, true);
    assert.equal(heard, 1, 'nobody listens after dispose');
  });
});
