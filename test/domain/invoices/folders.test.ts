import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildTree,
  builtInRecord,
  isBuiltInId,
  missingBuiltIns,
  siblingWithName,
  subtreeIds,
  wouldCycle,
  type FolderRecord,
} from '../../../functions/src/domain/invoices/folders.ts';

const at = '2026-01-01T00:00:00.000Z';
const custom = (id: string, parentId = '', name = id): FolderRecord => ({ id, name, parentId, kind: 'custom', createdAt: at });

test('built-in ids: general, petty cash and card-<4 digits>', () => {
  assert.deepEqual([isBuiltInId('general'), isBuiltInId('petty-cash'), isBuiltInId('card-1234'), isBuiltInId('card-12'), isBuiltInId('x')], [true, true, true, false, false]);
  assert.deepEqual(builtInRecord('card-4321', at), { id: 'card-4321', name: 'כרטיס 4321', parentId: '', kind: 'card', cardEnding: '4321', createdAt: at });
  assert.equal(builtInRecord('general', at)?.kind, 'general');
  assert.equal(builtInRecord('petty-cash', at)?.kind, 'petty_cash');
  assert.equal(builtInRecord('abc', at), null);
});

test('missingBuiltIns: the base built-ins plus one folder per card ending, minus what exists', () => {
  const ids = (fs: FolderRecord[]) => fs.map((f) => f.id).sort();
  assert.deepEqual(ids(missingBuiltIns(new Set(), [], at)), ['general', 'petty-cash']);
  assert.deepEqual(ids(missingBuiltIns(new Set(['general', 'card-1111']), ['1111', '2222', '2222', 'bad'], at)), ['card-2222', 'petty-cash']);
  assert.deepEqual(missingBuiltIns(new Set(['general', 'petty-cash']), [], at), []);
});

test('subtreeIds: the folder and everything below, and never loops on a corrupt cycle', () => {
  const fs = [custom('a'), custom('b', 'a'), custom('c', 'b'), custom('d', 'a'), custom('e')];
  assert.deepEqual(subtreeIds(fs, 'a').sort(), ['a', 'b', 'c', 'd']);
  assert.deepEqual(subtreeIds(fs, 'c'), ['c']);
  const loop = [custom('x', 'y'), custom('y', 'x')];
  assert.deepEqual(subtreeIds(loop, 'x').sort(), ['x', 'y']);
});

test('wouldCycle: a folder cannot go under itself or anything below it', () => {
  const parent: Record<string, string> = { b: 'a', c: 'b', d: '' };
  const up = (id: string) => parent[id];
  assert.equal(wouldCycle('a', 'a', up), true);
  assert.equal(wouldCycle('a', 'c', up), true);
  assert.equal(wouldCycle('b', 'c', up), true);
  assert.equal(wouldCycle('c', 'a', up), false);
  assert.equal(wouldCycle('a', 'd', up), false);
  assert.equal(wouldCycle('z', 'p', (id) => ({ p: 'q', q: 'p' })[id]), false, 'an existing cycle above does not hang');
});

test('siblingWithName ignores case and surrounding spaces, and the folder itself', () => {
  const fs = [custom('a', '', 'Receipts'), custom('b', 'a', 'Receipts')];
  assert.equal(siblingWithName(fs, '', '  receipts ')?.id, 'a');
  assert.equal(siblingWithName(fs, '', 'RECEIPTS', 'a'), undefined);
  assert.equal(siblingWithName(fs, 'a', 'receipts')?.id, 'b');
  assert.equal(siblingWithName(fs, 'b', 'receipts'), undefined);
});

test('buildTree: pre-order, built-ins first, names sorted, depth, path and child ids', () => {
  const fs = [custom('z', '', 'Zeta'), custom('y', 'z', 'Beta'), custom('x', 'z', 'Alpha'), custom('w', 'x', 'Deep'), builtInRecord('petty-cash', at)!, builtInRecord('general', at)!, builtInRecord('card-1234', at)!];
  const tree = buildTree(fs);
  assert.deepEqual(
    tree.map((e) => [e.folder.id, e.depth]),
    [['general', 0], ['petty-cash', 0], ['card-1234', 0], ['z', 0], ['x', 1], ['w', 2], ['y', 1]],
  );
  const w = tree.find((e) => e.folder.id === 'w')!;
  assert.deepEqual(w.path, ['Zeta', 'Alpha', 'Deep']);
  assert.deepEqual(tree.find((e) => e.folder.id === 'z')!.childIds, ['x', 'y']);
});

test('buildTree lists orphans and cycle members at the top level rather than losing them', () => {
  const tree = buildTree([custom('o', 'gone'), custom('p', 'q'), custom('q', 'p')]);
  assert.deepEqual(tree.map((e) => e.folder.id).sort(), ['o', 'p', 'q']);
  assert.equal(tree.find((e) => e.folder.id === 'o')!.depth, 0);
});
