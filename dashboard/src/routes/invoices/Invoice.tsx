import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Anchor, Badge, Button, Card, Checkbox, Grid, Group, NativeSelect, Select, Stack, TextInput, Textarea, Title } from '@mantine/core';
import { categoryName, folderPath } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import type { OperationName } from '../../api/client.ts';
import { FileName } from '../../ui/FileName.tsx';
import { ReadingCard } from './ReadingCard.tsx';

const PAY_MARKS = ['', 'unpaid', 'paid_card', 'paid_paypal', 'paid_transfer', 'paid_other', 'not_payable'] as const;
const AFTER: OperationName[] = ['invoiceGet', 'invoicesList', 'attention'];

/** The file beside what the AI read from it, and the owner's edits. */
export default function Invoice() {
  const { docId = '' } = useParams();
  const { m } = useI18n();
  const navigate = useNavigate();
  const q = useApi('invoiceGet', { docId });
  // Each answer carries a fresh download link; the preview keeps the first one of this invoice, or every refetch
  // would reload the PDF frame, whose viewer takes the focus from whatever the owner is typing.
  const [preview, setPreview] = useState<{ docId: string; url: string } | null>(null);
  const freshUrl = q.data?.url;
  useEffect(() => {
    if (freshUrl) setPreview((cur) => (cur?.docId === docId ? cur : { docId, url: freshUrl }));
  }, [freshUrl, docId]);
  const categories = useApi('categoriesList', {});
  const folders = useApi('foldersList', {});
  const setFolder = useApiMutation('invoiceSetFolder', [...AFTER, 'foldersList']);
  const update = useApiMutation('updateInvoiceDoc', AFTER);
  const setCategory = useApiMutation('invoiceSetCategory', AFTER);
  const del = useApiMutation('deleteInvoiceDoc', ['invoicesList', 'attention']);
  const [f, setF] = useState({ supplierName: '', note: '', payMark: '' as (typeof PAY_MARKS)[number] });
  const [remember, setRemember] = useState(false);
  useEffect(() => {
    if (q.data) setF({ supplierName: q.data.supplierName, note: q.data.note, payMark: q.data.payMark });
  }, [q.data]);
  if (q.isPending) return <ListSkeleton />;
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} />;
  const d = q.data;
  const previewSrc = preview?.docId === docId ? preview.url : (d.url ?? undefined);
  const failed = [update, setCategory, setFolder, del].find((x) => x.isError);
  return (
    <>
      <PageTitle
        actions={
          <ActionButton op="deleteInvoiceDoc" label={m.invoices.deleteDoc} loading={del.isPending} onRun={() => del.mutate({ docId }, { onSuccess: () => navigate('/invoices') })} />
        }
      >
        <span className="wrap-anywhere">{d.issuerName || <FileName name={d.fileName} />}</span>
      </PageTitle>
      {failed && <ErrorAlert error={failed.error} />}
      <Group gap="xs" mb="md">
        <Badge variant="light" style={{ textTransform: 'none' }}>
          {m.invoices.reading[d.readingStatus]}
        </Badge>
        {d.duplicateOf && (
          <Anchor href={`/invoices/${d.duplicateOf}`}>
            <Badge color="orange" style={{ textTransform: 'none' }}>
              {m.invoices.duplicateOf}
            </Badge>
          </Anchor>
        )}
      </Group>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {m.invoices.preview}
            </Title>
            {d.url ? (
              d.contentType.startsWith('image/') ? (
                <img src={previewSrc} alt={d.fileName} className="preview-image" />
              ) : (
                <iframe src={previewSrc} title={d.fileName} className="preview-frame" />
              )
            ) : null}
            {d.url && (
              <Anchor href={d.url} target="_blank" rel="noopener" size="sm">
                {m.invoices.download}
              </Anchor>
            )}
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Stack>
            <ReadingCard d={d} />
            <Card withBorder>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  update.mutate({ docId, supplierName: f.supplierName, note: f.note, payMark: f.payMark });
                }}
              >
                <Stack>
                  <TextInput label={m.invoices.supplierName} value={f.supplierName} onChange={(e) => setF({ ...f, supplierName: e.currentTarget.value })} />
                  <Select label={m.invoices.payMark} data={PAY_MARKS.map((p) => ({ value: p, label: m.invoices.payMarks[p] }))} value={f.payMark} onChange={(v) => setF({ ...f, payMark: (v ?? '') as typeof f.payMark })} allowDeselect={false} />
                  <Textarea label={m.invoices.note} value={f.note} onChange={(e) => setF({ ...f, note: e.currentTarget.value })} autosize minRows={2} />
                  <Button type="submit" loading={update.isPending}>
                    {update.isSuccess ? m.saved : m.save}
                  </Button>
                </Stack>
              </form>
            </Card>
            <Card withBorder>
              <Stack>
                <Select
                  label={m.invoices.category}
                  searchable
                  data={(categories.data?.items ?? []).map((c) => ({ value: c.id, label: categoryName(m, c) }))}
                  value={d.category || null}
                  onChange={(v) => v && setCategory.mutate({ docIds: [docId], category: v, remember })}
                />
                <Checkbox label={m.categories.rules} checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} />
              </Stack>
            </Card>
            <Card withBorder>
              <NativeSelect
                label={m.folders.moveTo}
                description={m.folders.moveHint}
                data={[...(d.folderId ? [] : [{ value: '', label: '—', disabled: true }]), ...(folders.data?.folders ?? []).map((x, _, all) => ({ value: x.id, label: folderPath(m, x, all) }))]}
                value={d.folderId}
                onChange={(e) => e.currentTarget.value !== d.folderId && setFolder.mutate({ docId, folderId: e.currentTarget.value })}
                disabled={setFolder.isPending}
                data-testid="invoice-folder"
              />
            </Card>
          </Stack>
        </Grid.Col>
      </Grid>
    </>
  );
}
