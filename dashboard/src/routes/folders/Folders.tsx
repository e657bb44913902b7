import { useState } from 'react';
import { Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { folderName, folderPath } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { InvoicesNav } from '../invoices/invoicesNav.tsx';

export default function Folders() {
  const { m, fill } = useI18n();
  const folders = useApi('foldersList', {});
  const rules = useApi('folderRulesList', {});
  const create = useApiMutation('folderCreate', ['foldersList']);
  const rename = useApiMutation('folderRename', ['foldersList']);
  const move = useApiMutation('folderMove', ['foldersList']);
  const remove = useApiMutation('folderDelete', ['foldersList', 'folderRulesList', 'invoicesList']);
  const reorder = useApiMutation('folderRuleReorder', ['folderRulesList']);
  const delRule = useApiMutation('folderRuleDelete', ['folderRulesList']);
  const saveRule = useApiMutation('folderRuleSave', ['folderRulesList']);
  const [name, setName] = useState('');
  const [parent, setParent] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: string; name: string; parentId: string } | null>(null);
  const [dragged, setDragged] = useState<string | null>(null);
  const [rule, setRule] = useState({ from: '', words: '', folderId: '' });
  const failed = [create, rename, move, remove, reorder, delRule, saveRule].find((x) => x.isError);
  const list = folders.data?.folders ?? [];
  const options = list.map((f) => ({ value: f.id, label: folderPath(m, f, list) }));
  const nameOf = (id: string) => options.find((o) => o.value === id)?.label ?? id;
  const ids = (rules.data?.rules ?? []).map((r) => r.id);
  // Each condition with the sources it applies to: mail conditions never hold for uploads.
  const conditions = (w: { from: string; subject: string; words: string; notWords: string; supplier: string }) =>
    (
      [
        [m.folders.ruleFrom, w.from, m.folders.sourceMail],
        [m.folders.ruleSubject, w.subject, m.folders.sourceMail],
        [m.folders.ruleWords, w.words, m.folders.sourceAll],
        [m.folders.ruleNotWords, w.notWords, m.folders.sourceAll],
        [m.folders.ruleSupplier, w.supplier, m.folders.sourceAll],
      ] as const
    )
      .filter(([, v]) => v)
      .map(([label, v, sources]) => `${label} (${sources}): ${v}`);
  const moveRule = (id: string, to: number) => {
    const rest = ids.filter((x) => x !== id);
    rest.splice(Math.max(0, Math.min(rest.length, to)), 0, id);
    reorder.mutate({ ids: rest });
  };
  return (
    <>
      <PageTitle>{m.invoices.title}</PageTitle>
      <InvoicesNav />
      {failed && <ErrorAlert error={failed.error} />}
      <Title order={2} size="h4" mb="xs">
        {m.folders.title}
      </Title>
      <Card withBorder mb="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name: name.trim(), ...(parent ? { parentId: parent } : {}) }, { onSuccess: () => setName('') });
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput label={m.folders.name} value={name} onChange={(e) => setName(e.currentTarget.value)} required />
            <Select label={m.folders.parent} clearable placeholder={m.folders.root} data={options} value={parent} onChange={setParent} />
            <Button type="submit" loading={create.isPending}>
              {m.folders.new}
            </Button>
          </Group>
        </form>
      </Card>
      {folders.isPending ? (
        <ListSkeleton rows={3} />
      ) : folders.isError ? (
        <ErrorAlert error={folders.error} onRetry={() => void folders.refetch()} />
      ) : (
        <Stack gap={4} mb="lg" role="tree" aria-label={m.folders.title}>
          <Text size="sm" c="dimmed">
            {fill(m.folders.unfiled, { n: folders.data.unfiled })}
          </Text>
          {list.map((f) => (
            <Card key={f.id} withBorder padding="xs" role="treeitem" aria-level={f.depth + 1} aria-selected={false} style={{ marginInlineStart: f.depth * 20 }}>
              {editing?.id === f.id ? (
                <Group wrap="wrap" align="flex-end">
                  <TextInput label={m.folders.name} value={editing.name} onChange={(e) => setEditing({ ...editing, name: e.currentTarget.value })} />
                  <Select label={m.folders.parent} data={[{ value: '', label: m.folders.root }, ...options.filter((o) => o.value !== f.id)]} value={editing.parentId} onChange={(v) => setEditing({ ...editing, parentId: v ?? '' })} allowDeselect={false} />
                  <Button
                    onClick={() => {
                      if (editing.name !== f.name) rename.mutate({ id: f.id, name: editing.name });
                      if (editing.parentId !== f.parentId) move.mutate({ id: f.id, parentId: editing.parentId });
                      setEditing(null);
                    }}
                  >
                    {m.save}
                  </Button>
                  <Button variant="default" onClick={() => setEditing(null)}>
                    {m.cancel}
                  </Button>
                </Group>
              ) : (
                <Group justify="space-between" wrap="wrap">
                  <Text>
                    {folderName(m, f)} <Text span size="xs" c="dimmed">({fill(m.folders.count, { n: f.count })})</Text>
                  </Text>
                  {f.kind === 'custom' && (
                    <Group gap={4}>
                      <Button size="compact-sm" variant="subtle" onClick={() => setEditing({ id: f.id, name: f.name, parentId: f.parentId })}>
                        {m.edit}
                      </Button>
                      <ActionButton op="folderDelete" size="compact-sm" label={`${m.delete} ${folderName(m, f)}`} onRun={() => remove.mutate({ id: f.id })} />
                    </Group>
                  )}
                </Group>
              )}
            </Card>
          ))}
        </Stack>
      )}
      <Title order={2} size="h4" mb="xs">
        {m.folders.rules}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {m.folders.dragHint}
      </Text>
      <Card withBorder mb="sm">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            saveRule.mutate({ when: { from: rule.from, words: rule.words }, folderId: rule.folderId }, { onSuccess: () => setRule({ from: '', words: '', folderId: '' }) });
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput label={m.folders.ruleFrom} description={m.folders.ruleFromHint} value={rule.from} onChange={(e) => setRule({ ...rule, from: e.currentTarget.value })} />
            <TextInput label={m.folders.ruleWords} description={m.folders.ruleWordsHint} value={rule.words} onChange={(e) => setRule({ ...rule, words: e.currentTarget.value })} />
            <Select label={m.invoices.folder} data={options} value={rule.folderId || null} onChange={(v) => setRule({ ...rule, folderId: v ?? '' })} required />
            <Button type="submit" disabled={!rule.folderId || (!rule.from && !rule.words)} loading={saveRule.isPending}>
              {m.folders.addRule}
            </Button>
          </Group>
        </form>
      </Card>
      {rules.isPending ? (
        <ListSkeleton rows={2} />
      ) : rules.isError ? (
        <ErrorAlert error={rules.error} onRetry={() => void rules.refetch()} />
      ) : !rules.data.rules.length ? (
        <Text c="dimmed">{m.folders.rulesEmpty}</Text>
      ) : (
        <Stack gap={4}>
          {rules.data.rules.map((r, i) => (
            <Card
              key={r.id}
              withBorder
              padding="xs"
              draggable
              onDragStart={() => setDragged(r.id)}
              onDragOver={(e) => e.preventDefault()}
              onDrop={() => {
                if (dragged && dragged !== r.id) moveRule(dragged, i);
                setDragged(null);
              }}
              style={{ cursor: 'grab' }}
            >
              <Group justify="space-between" wrap="wrap">
                <Text size="sm" className="wrap-anywhere">
                  {i + 1}. {conditions(r.when).join(' · ')} → {nameOf(r.folderId)}
                </Text>
                <Group gap={4}>
                  <Button size="compact-xs" variant="default" disabled={i === 0} onClick={() => moveRule(r.id, i - 1)}>
                    {m.folders.moveUp}
                  </Button>
                  <Button size="compact-xs" variant="default" disabled={i === ids.length - 1} onClick={() => moveRule(r.id, i + 1)}>
                    {m.folders.moveDown}
                  </Button>
                  <ActionButton op="folderRuleDelete" size="compact-xs" label={m.delete} onRun={() => delRule.mutate({ id: r.id })} />
                </Group>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
