import { useState } from 'react';
import { DndContext, KeyboardSensor, PointerSensor, pointerWithin, rectIntersection, useDraggable, useDroppable, useSensor, useSensors, type CollisionDetection, type DragEndEvent } from '@dnd-kit/core';

/** The folder under the pointer; with the keyboard (no pointer), the one the moved handle overlaps. */
const underPointer: CollisionDetection = (args) => {
  const hits = pointerWithin(args);
  return hits.length ? hits : rectIntersection(args);
};
import { Alert, Anchor, Button, Card, Group, MultiSelect, Progress, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { folderPath } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import type { Input, Output } from '../../api/client.ts';
import { addMonths, currentMonth, useAccounts } from '../statements/statementsShared.tsx';

type Folder = Output<'accountantFoldersList'>['folders'][number];
type Source = NonNullable<Input<'accFolderSetSource'>['source']>;
type Kind = '' | Source['kind'];
const KINDS = ['', 'invoices', 'statements', 'proofs', 'signed'] as const;
const PAY = ['card', 'paypal', 'bank_transfer', 'cash', 'check', 'other', 'unknown'] as const;

/** The month before this one in Israel (the business's calendar), whatever the browser's zone. */
const lastMonth = () => addMonths(currentMonth(), -1);

function useSize() {
  const { locale } = useI18n();
  return (bytes: number) => {
    const [v, unit] = bytes >= 1048576 ? [bytes / 1048576, 'megabyte'] : [Math.max(1, bytes / 1024), 'kilobyte'];
    return new Intl.NumberFormat(locale, { style: 'unit', unit, maximumFractionDigits: 1 }).format(v);
  };
}

type SourceState = { kind: Kind; folderIds: string[]; payMethods: string[]; accountIds: string[] };
const NO_SOURCE: SourceState = { kind: '', folderIds: [], payMethods: [], accountIds: [] };
const stateOf = (s: Source | null | undefined): SourceState => (s ? { kind: s.kind, folderIds: s.folderIds ?? [], payMethods: s.payMethods ?? [], accountIds: s.accountIds ?? [] } : NO_SOURCE);

/** The source rule's editor: kind, then what it takes (empty = all): invoice folders and pay methods, or statement accounts. */
function SourceFields({ value, onChange }: { value: SourceState; onChange(v: SourceState): void }) {
  const { m } = useI18n();
  const { kind, folderIds, payMethods, accountIds } = value;
  const invoiceFolders = useApi('foldersList', {}, { enabled: kind === 'invoices' });
  const { accounts } = useAccounts({ enabled: kind === 'statements' });
  return (
    <>
      <Select label={m.accountant.source} data={KINDS.map((k) => ({ value: k, label: m.accountant.kinds[k] }))} value={kind} onChange={(v) => onChange({ ...value, kind: (v ?? '') as Kind })} allowDeselect={false} />
      {kind === 'invoices' && (
        <>
          <MultiSelect label={m.accountant.invoiceFolders} data={(invoiceFolders.data?.folders ?? []).map((f, _, all) => ({ value: f.id, label: folderPath(m, f, all) }))} value={folderIds} onChange={(v) => onChange({ ...value, folderIds: v })} clearable />
          <MultiSelect label={m.accountant.payMethods} data={PAY.map((p) => ({ value: p, label: m.accountant.pay[p] }))} value={payMethods} onChange={(v) => onChange({ ...value, payMethods: v })} clearable />
        </>
      )}
      {kind === 'statements' && (
        <MultiSelect
          label={m.accountant.statementAccounts}
          placeholder={accountIds.length ? undefined : m.accountant.allAccounts}
          // An account chosen before and since disconnected still shows, by its id, so saving does not drop it silently.
          data={[...accounts.map((a) => ({ value: a.id, label: a.currency ? `${a.name} · ${a.currency}` : a.name })), ...accountIds.filter((id) => !accounts.some((a) => a.id === id)).map((id) => ({ value: id, label: id }))]}
          value={accountIds}
          onChange={(v) => onChange({ ...value, accountIds: v })}
          clearable
        />
      )}
    </>
  );
}

const toSource = (s: SourceState): Source | null =>
  s.kind
    ? { kind: s.kind, folderIds: s.kind === 'invoices' ? s.folderIds : [], payMethods: s.kind === 'invoices' ? (s.payMethods as Source['payMethods']) : [], accountIds: s.kind === 'statements' ? s.accountIds : [] }
    : null;

function FolderRow({ f, options, onMove }: { f: Folder; options: { value: string; label: string }[]; onMove(id: string, parentId: string): void }) {
  const { m, fill } = useI18n();
  const rename = useApiMutation('accFolderRename', ['accountantFoldersList']);
  const setSource = useApiMutation('accFolderSetSource', ['accountantFoldersList']);
  const remove = useApiMutation('accFolderDelete', ['accountantFoldersList']);
  const drag = useDraggable({ id: f.id });
  // A folder being dragged follows the pointer: it is no drop target for itself.
  const drop = useDroppable({ id: `drop:${f.id}`, disabled: drag.isDragging });
  const [edit, setEdit] = useState<null | ({ name: string; parentId: string } & SourceState)>(null);
  const failed = [rename, setSource, remove].find((x) => x.isError);
  const below = new Set([f.id, ...options.filter((o) => o.label.startsWith(f.path.join(' / ') + ' / ')).map((o) => o.value)]);
  const sourceText = f.source
    ? [m.accountant.kinds[f.source.kind], f.source.payMethods.map((p) => m.accountant.pay[p]).join(', '), f.source.folderIds.length ? fill(m.accountant.folderCount, { n: f.source.folderIds.length }) : '', f.source.accountIds.length ? fill(m.accountant.accountCount, { n: f.source.accountIds.length }) : ''].filter(Boolean).join(' · ')
    : m.accountant.kinds[''];
  return (
    <Card
      ref={drop.setNodeRef}
      withBorder
      padding="xs"
      role="treeitem"
      aria-level={f.depth + 1}
      aria-selected={false}
      className="acc-drop"
      data-over={drop.isOver && drag.active?.id !== f.id}
      data-testid="acc-folder"
      data-name={f.name}
      style={{ marginInlineStart: Math.min(f.depth, 4) * 16, opacity: drag.isDragging ? 0.5 : 1, transform: drag.transform ? `translate3d(${drag.transform.x}px, ${drag.transform.y}px, 0)` : undefined, zIndex: drag.isDragging ? 10 : undefined, position: 'relative' }}
    >
      {edit ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (edit.name.trim() !== f.name) rename.mutate({ id: f.id, name: edit.name.trim() });
            if (edit.parentId !== f.parentId) onMove(f.id, edit.parentId);
            const next = toSource(edit);
            if (JSON.stringify(next) !== JSON.stringify(toSource(stateOf(f.source)))) setSource.mutate({ id: f.id, source: next });
            setEdit(null);
          }}
        >
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label={m.accountant.name} value={edit.name} onChange={(e) => setEdit({ ...edit, name: e.currentTarget.value })} required />
            <Select label={m.accountant.parent} data={[{ value: '', label: m.accountant.root }, ...options.filter((o) => !below.has(o.value))]} value={edit.parentId} onChange={(v) => setEdit({ ...edit, parentId: v ?? '' })} allowDeselect={false} />
            <SourceFields value={edit} onChange={(s) => setEdit({ ...edit, ...s })} />
          </SimpleGrid>
          <Group mt="sm" gap="xs">
            <Button type="submit" size="xs">
              {m.save}
            </Button>
            <Button size="xs" variant="default" onClick={() => setEdit(null)}>
              {m.cancel}
            </Button>
          </Group>
        </form>
      ) : (
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <button type="button" className="drag-handle mantine-focus-auto" ref={drag.setNodeRef} {...drag.listeners} {...drag.attributes} aria-label={fill(m.accountant.drag, { name: f.name })} data-testid="drag-handle" style={{ border: 0, background: 'none', padding: 4, fontSize: 18, lineHeight: 1 }}>
              ⠿
            </button>
            <Stack gap={0} style={{ minWidth: 0 }}>
              <Text fw={500} className="wrap-anywhere">
                {f.name}
              </Text>
              <Text size="xs" c="dimmed" className="wrap-anywhere">
                {sourceText}
              </Text>
            </Stack>
          </Group>
          <Group gap={4} wrap="nowrap">
            <Button size="compact-sm" variant="subtle" onClick={() => setEdit({ name: f.name, parentId: f.parentId, ...stateOf(f.source) })}>
              {m.edit}
            </Button>
            <ActionButton op="accFolderDelete" size="compact-sm" label={m.delete} onRun={() => remove.mutate({ id: f.id })} />
          </Group>
        </Group>
      )}
      {failed && <ErrorAlert error={failed.error} />}
    </Card>
  );
}

function RootDrop() {
  const { m } = useI18n();
  const drop = useDroppable({ id: 'drop:' });
  return (
    <Card ref={drop.setNodeRef} withBorder padding="xs" className="acc-drop" data-over={drop.isOver} data-testid="acc-root">
      <Text size="sm" c="dimmed">
        {m.accountant.rootDrop}
      </Text>
    </Card>
  );
}

function Tree() {
  const { m, fill } = useI18n();
  const list = useApi('accountantFoldersList', {});
  const template = useApiMutation('accFolderTemplate', ['accountantFoldersList']);
  const create = useApiMutation('accFolderCreate', ['accountantFoldersList']);
  const move = useApiMutation('accFolderMove', ['accountantFoldersList']);
  const [name, setName] = useState('');
  const [parent, setParent] = useState<string | null>(null);
  const [src, setSrc] = useState<SourceState>(NO_SOURCE);
  const [said, setSaid] = useState('');
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor));
  const folders = list.data?.folders ?? [];
  const options = folders.map((f) => ({ value: f.id, label: f.path.join(' / ') }));
  const nameOf = (id: string) => (id ? (folders.find((f) => f.id === id)?.name ?? id) : m.accountant.root);
  const doMove = (id: string, parentId: string) => move.mutate({ id, parentId }, { onSuccess: () => setSaid(fill(m.accountant.moved, { name: nameOf(id), to: nameOf(parentId) })) });
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over) return;
    const id = String(active.id);
    const target = String(over.id).slice('drop:'.length);
    const f = folders.find((x) => x.id === id);
    if (!f || target === id || target === f.parentId) return;
    doMove(id, target);
  };
  return (
    <>
      <Card withBorder mb="md">
        <Stack gap="xs">
          <Text size="sm">{m.accountant.templateHint}</Text>
          <Group>
            <Button onClick={() => template.mutate({}, { onSuccess: (r) => setSaid(fill(m.accountant.templateDone, { n: r.created })) })} loading={template.isPending}>
              {m.accountant.template}
            </Button>
          </Group>
          {template.isError && <ErrorAlert error={template.error} />}
        </Stack>
      </Card>
      <Card withBorder mb="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name: name.trim(), parentId: parent ?? '', source: toSource(src) }, { onSuccess: () => (setName(''), setSrc(NO_SOURCE)) });
          }}
        >
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label={m.accountant.name} value={name} onChange={(e) => setName(e.currentTarget.value)} required />
            <Select label={m.accountant.parent} clearable placeholder={m.accountant.root} data={options} value={parent} onChange={setParent} />
            <SourceFields value={src} onChange={setSrc} />
          </SimpleGrid>
          <Button type="submit" mt="sm" loading={create.isPending} disabled={!name.trim()}>
            {m.accountant.newFolder}
          </Button>
          {create.isError && <ErrorAlert error={create.error} />}
        </form>
      </Card>
      <Text size="sm" c="dimmed" mb="xs">
        {m.accountant.treeHint}
      </Text>
      <Text size="sm" role="status" mb="xs">
        {said}
      </Text>
      {move.isError && <ErrorAlert error={move.error} />}
      {list.isPending ? (
        <ListSkeleton rows={4} />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : !folders.length ? (
        <Empty title={m.accountant.empty} />
      ) : (
        <DndContext sensors={sensors} onDragEnd={onDragEnd} collisionDetection={underPointer}>
          <Stack gap={4} mb="lg" role="tree" aria-label={m.accountant.tree} data-testid="acc-tree">
            <RootDrop />
            {folders.map((f) => (
              <FolderRow key={f.id} f={f} options={options} onMove={doMove} />
            ))}
          </Stack>
        </DndContext>
      )}
    </>
  );
}

function ZipAndSend() {
  const { m, fill, date } = useI18n();
  const size = useSize();
  const [from, setFrom] = useState(lastMonth());
  const [to, setTo] = useState(lastMonth());
  const [recipients, setRecipients] = useState('');
  const zip = useApiMutation('accZip');
  const send = useApiMutation('accZipSend');
  const emails = recipients.split(/[,\s;]+/).map((s) => s.trim()).filter(Boolean);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        {m.accountant.zip}
      </Title>
      <SimpleGrid cols={2} mb="sm">
        <TextInput type="month" label={m.accountant.from} value={from} max={to || undefined} onChange={(e) => setFrom(e.currentTarget.value)} required />
        <TextInput type="month" label={m.accountant.to} value={to} min={from || undefined} onChange={(e) => setTo(e.currentTarget.value)} required />
      </SimpleGrid>
      <Group mb="sm">
        <Button onClick={() => zip.mutate({ from, to })} loading={zip.isPending} disabled={!from || !to}>
          {m.accountant.build}
        </Button>
      </Group>
      {zip.isPending && (
        <Stack gap={4} mb="sm" role="status">
          <Text size="sm">{m.accountant.building}</Text>
          {/* accZip answers when the ZIP is stored: the bar shows work under way, not a fraction. */}
          <Progress value={100} animated striped aria-label={m.accountant.building} />
        </Stack>
      )}
      {zip.isError && <ErrorAlert error={zip.error} />}
      {zip.isSuccess && (
        <Alert color="green" mb="sm" role="status" title={fill(m.accountant.ready, { entries: zip.data.entries, size: size(zip.data.size) })} data-testid="zip-ready">
          <Stack gap={4}>
            {zip.data.missing > 0 && <Text size="sm">{fill(m.accountant.missing, { n: zip.data.missing })}</Text>}
            <Group>
              <Button component="a" href={zip.data.url} download={zip.data.fileName} data-testid="zip-link">
                {m.accountant.downloadZip}
              </Button>
            </Group>
            <Text size="xs">{fill(m.accountant.expires, { date: date(zip.data.expiresAt, true) })}</Text>
          </Stack>
        </Alert>
      )}
      <Title order={3} size="h5" mt="md" mb="xs">
        {m.accountant.send}
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate({ from, to, recipients: emails });
        }}
      >
        <TextInput label={m.accountant.recipients} description={m.accountant.recipientsHint} value={recipients} onChange={(e) => setRecipients(e.currentTarget.value)} dir="ltr" type="text" inputMode="email" required />
        <Button type="submit" mt="sm" loading={send.isPending} disabled={!emails.length || !from || !to}>
          {m.accountant.sendGo}
        </Button>
      </form>
      {send.isError && <ErrorAlert error={send.error} />}
      {send.isSuccess && (
        <Alert color="green" mt="sm" role="status" title={fill(m.accountant.sent, { to: send.data.recipients.join(', '), entries: send.data.entries, attached: send.data.attached ? m.accountant.attached : '' })}>
          <Anchor href={send.data.url} download={send.data.fileName} size="sm">
            {m.accountant.downloadZip}
          </Anchor>
        </Alert>
      )}
    </Card>
  );
}

export default function Accountant() {
  const { m } = useI18n();
  return (
    <>
      <PageTitle>{m.accountant.title}</PageTitle>
      <Title order={2} size="h4" mb="xs">
        {m.accountant.tree}
      </Title>
      <Tree />
      <ZipAndSend />
    </>
  );
}
