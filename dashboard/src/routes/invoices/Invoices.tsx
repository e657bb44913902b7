import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { Anchor, Box, Button, Card, Checkbox, Group, NativeSelect, Progress, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { categoryName, folderPath } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { fileToBase64, useApi, useApiMutation } from '../../ui/api.ts';
import { DropZone, Empty, ErrorAlert, ListSkeleton, PageTitle, errorText, Pager, SearchForm, useListParams } from '../../ui/common.tsx';
import { call } from '../../api/client.ts';
import { InvoiceCard, type InvoiceRow } from '../../ui/cards.tsx';
import { InvoicesNav } from './invoicesNav.tsx';
import { BulkBar } from './BulkBar.tsx';

type Upload = { name: string; state: 'queued' | 'uploading' | 'done' | 'duplicate' | 'failed'; docId?: string; duplicateOf?: string; message?: string };
const PAY_MARKS = ['', 'unpaid', 'paid_card', 'paid_paypal', 'paid_transfer', 'paid_other', 'not_payable'] as const;
const SOURCES = ['upload', 'mailbox', 'supplier'] as const;

/** Several files at once, each with its own state; duplicates shown as the API reports them. */
function UploadZone() {
  const { m, fill } = useI18n();
  const qc = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const start = async (files: File[]) => {
    const base = uploads.length;
    setUploads((u) => [...u, ...files.map((f) => ({ name: f.name, state: 'queued' as const }))]);
    const update = (i: number, v: Partial<Upload>) => setUploads((u) => u.map((x, j) => (j === base + i ? { ...x, ...v } : x)));
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const i = next++;
        const f = files[i];
        update(i, { state: 'uploading' });
        try {
          const r = (await call('uploadInvoiceDoc', { fileName: f.name, mimeType: f.type || 'application/pdf', dataBase64: await fileToBase64(f) })) as { skipped?: boolean; duplicateOf?: string; docId?: string };
          update(i, r.skipped ? { state: 'duplicate', duplicateOf: r.duplicateOf } : { state: 'done', docId: r.docId });
        } catch (e) {
          update(i, { state: 'failed', message: errorText(e, m, fill) });
        }
      }
    };
    // One at a time: a copy in the same batch is then checked against the original, so duplicates are reported.
    await worker();
    await Promise.all(['invoicesList', 'attention', 'supplierSuggestionsList'].map((k) => qc.invalidateQueries({ queryKey: [k] })));
  };
  const finished = uploads.filter((u) => u.state !== 'queued' && u.state !== 'uploading').length;
  return (
    <Card withBorder mb="md">
      <DropZone testId="drop-zone" onFiles={(files) => void start(files)}>
        <Text>
          {m.invoices.dropHere}{' '}
          <Button variant="subtle" size="compact-md" onClick={() => input.current?.click()}>
            {m.invoices.choose}
          </Button>
        </Text>
        <input ref={input} type="file" multiple hidden accept="application/pdf,image/png,image/jpeg" aria-label={m.invoices.upload} data-testid="upload-input" onChange={(e) => void start([...(e.currentTarget.files ?? [])])} />
      </DropZone>
      {uploads.length > 0 && (
        <Stack gap={6} mt="sm" aria-live="polite">
          <Progress value={(finished / uploads.length) * 100} aria-label={m.invoices.upload} />
          {uploads.map((u, i) => (
            <Group key={i} gap="xs" wrap="nowrap" data-testid="upload-row" data-state={u.state}>
              <Text size="sm" className="wrap-anywhere" c={u.state === 'failed' ? 'red.9' : u.state === 'duplicate' ? 'red.9' : undefined}>
                {u.state === 'queued' || u.state === 'uploading'
                  ? fill(m.invoices.uploading, { name: u.name })
                  : u.state === 'done'
                    ? fill(m.invoices.uploaded, { name: u.name })
                    : u.state === 'duplicate'
                      ? fill(m.invoices.duplicate, { name: u.name })
                      : fill(m.invoices.failed, { name: u.name, message: u.message ?? '' })}
              </Text>
              {u.docId && (
                <Anchor component={Link} to={`/invoices/${u.docId}`} size="sm">
                  {m.open}
                </Anchor>
              )}
              {u.duplicateOf && (
                <Anchor component={Link} to={`/invoices/${u.duplicateOf}`} size="sm">
                  {m.invoices.openOriginal}
                </Anchor>
              )}
            </Group>
          ))}
        </Stack>
      )}
    </Card>
  );
}

/** The row's move action: a folder list beside the card (the card itself is a link); native, so phones show their own picker. */
function MoveSelect({ d, folders, moving, onMove }: { d: InvoiceRow; folders: { value: string; label: string }[]; moving: boolean; onMove(folderId: string): void }) {
  const { m, fill } = useI18n();
  const name = d.issuerName || d.supplierName || d.fileName;
  return (
    <NativeSelect
      size="xs"
      w={120}
      aria-label={fill(m.folders.moveOf, { name })}
      disabled={moving}
      value=""
      data={[{ value: '', label: m.folders.move + '…', disabled: true }, ...folders.map((f) => ({ ...f, disabled: f.value === d.folderId }))]}
      onChange={(e) => e.currentTarget.value && onMove(e.currentTarget.value)}
    />
  );
}

export default function Invoices() {
  const { m, fill, number } = useI18n();
  // payMark and category keep an empty value: it is a filter of its own ("none").
  const { params, set, tokens, setTokens, pageToken } = useListParams(['payMark', 'category']);
  const get = (k: string) => params.get(k) ?? '';
  const folders = useApi('foldersList', {});
  const categories = useApi('categoriesList', {});
  const suppliers = useApi('suppliersList', {});
  const filters = {
    ...(get('folder') ? { folderId: get('folder') } : {}),
    ...(params.has('category') ? { category: get('category') } : {}),
    ...(get('supplier') ? { supplierKey: get('supplier') } : {}),
    ...(params.has('payMark') ? { payMark: get('payMark') as (typeof PAY_MARKS)[number] } : {}),
    ...(get('source') ? { source: get('source') as (typeof SOURCES)[number] } : {}),
    ...(get('q') ? { q: get('q') } : {}),
    ...(get('from') ? { from: get('from') } : {}),
    ...(get('to') ? { to: get('to') } : {}),
  };
  const list = useApi('invoicesList', { ...filters, limit: 50, ...(pageToken ? { pageToken } : {}) }, { placeholderData: (p) => p });
  const filtered = Object.keys(filters).length > 0;
  const move = useApiMutation('invoiceSetFolder', ['invoicesList', 'foldersList', 'invoiceGet']);
  const folderOptions = (folders.data?.folders ?? []).map((f, _, all) => ({ value: f.id, label: folderPath(m, f, all) }));
  // The selection is of this page's rows: one that leaves the page (a filter, another page) leaves it too.
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const pageIds = list.data?.items.map((d) => d.docId) ?? [];
  const selected = pageIds.filter((id) => picked.has(id));
  const toggle = (ids: string[], on: boolean) => setPicked((p) => new Set(on ? [...p, ...ids] : [...p].filter((x) => !ids.includes(x))));
  return (
    <>
      <PageTitle>{m.invoices.title}</PageTitle>
      <InvoicesNav />
      <UploadZone />
      <Title order={2} size="h5" mb="xs">
        {m.invoices.filters}
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} mb="md">
        <SearchForm initial={get('q')} onSearch={(v) => set('q', v)} />
        <Select label={m.invoices.folder} clearable data={(folders.data?.folders ?? []).map((f, _, all) => ({ value: f.id, label: folderPath(m, f, all) }))} value={get('folder') || null} onChange={(v) => set('folder', v)} />
        <Select label={m.invoices.category} clearable searchable data={[...(params.get('category') === '' ? [{ value: '', label: m.reports.uncategorized }] : []), ...(categories.data?.items ?? []).map((c) => ({ value: c.id, label: categoryName(m, c) }))]} value={params.has('category') ? get('category') : null} onChange={(v) => set('category', v)} />
        <Select label={m.suppliers.title} clearable searchable data={(suppliers.data?.items ?? []).map((s) => ({ value: s.key, label: s.name }))} value={get('supplier') || null} onChange={(v) => set('supplier', v)} />
        <Select label={m.invoices.payMark} clearable data={PAY_MARKS.filter(Boolean).map((p) => ({ value: p, label: m.invoices.payMarks[p] }))} value={get('payMark') || null} onChange={(v) => set('payMark', v)} />
        <Select label={m.invoices.source} clearable data={SOURCES.map((s) => ({ value: s, label: m.invoices.sources[s] }))} value={get('source') || null} onChange={(v) => set('source', v)} />
        <TextInput type="date" label={m.invoices.from} value={get('from')} onChange={(e) => set('from', e.currentTarget.value)} />
        <TextInput type="date" label={m.invoices.to} value={get('to')} onChange={(e) => set('to', e.currentTarget.value)} />
      </SimpleGrid>
      {list.isPending ? (
        <ListSkeleton />
      ) : list.isError ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data.items.length ? (
        <Empty title={filtered ? m.invoices.emptyFiltered : m.invoices.empty} />
      ) : (
        <Stack gap="xs" data-testid="invoices-list">
          {move.isError && <ErrorAlert error={move.error} />}
          <Group gap="md" wrap="wrap">
            <Checkbox
              label={m.invoiceBulk.selectAll}
              checked={selected.length > 0 && selected.length === pageIds.length}
              indeterminate={selected.length > 0 && selected.length < pageIds.length}
              onChange={(e) => toggle(pageIds, e.currentTarget.checked)}
              data-testid="select-page"
            />
            <Text size="sm" c="dimmed">
              {fill(m.folders.count, { n: (list.data.totalIsEstimate ? '~' : '') + number(list.data.total) })}
            </Text>
          </Group>
          {selected.length > 0 && <BulkBar docIds={selected} folders={folderOptions} onClear={() => setPicked(new Set())} />}
          {list.data.items.map((d) => (
            <Group key={d.docId} gap="xs" wrap="nowrap" align="center" data-testid="invoice-row">
              <Checkbox aria-label={fill(m.invoiceBulk.select, { name: d.issuerName || d.supplierName || d.fileName })} checked={picked.has(d.docId)} onChange={(e) => toggle([d.docId], e.currentTarget.checked)} />
              {/* On a phone the move list wraps under the card, which keeps the width for the names. */}
              <Group gap="xs" wrap="wrap" align="center" style={{ flex: 1, minWidth: 0 }}>
                <Box style={{ flex: '1 1 200px', minWidth: 0 }}>
                  <InvoiceCard d={d} />
                </Box>
                <MoveSelect d={d} folders={folderOptions} moving={move.isPending && move.variables?.docId === d.docId} onMove={(folderId) => move.mutate({ docId: d.docId, folderId })} />
              </Group>
            </Group>
          ))}
          <Pager tokens={tokens} setTokens={setTokens} next={list.data.nextPageToken} />
        </Stack>
      )}
    </>
  );
}
