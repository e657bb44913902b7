import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert, Button, Card, Checkbox, FileInput, Group, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { fileToBase64, useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import type { Output } from '../../api/client.ts';
import type { PageImage } from '../invoices/pdfPages.ts';
import { FileName } from '../../ui/FileName.tsx';
import { fillNodes } from '../../ui/fillNodes.tsx';

type Field = Output<'getSignupDocFields'>['fields'][number];
const TICKED = /^(true|yes|x|✓|v)$/i;

/** A PDF's pages as images (pdf.js, loaded with this screen only); null while drawing. */
function usePages(url: string | null | undefined): { pages: PageImage[] | null; error: string | null } {
  const { m, fill } = useI18n();
  const [state, setState] = useState<{ pages: PageImage[] | null; error: string | null }>({ pages: null, error: null });
  useEffect(() => {
    if (!url) return;
    let live = true;
    let made: PageImage[] = [];
    setState({ pages: null, error: null });
    (async () => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const { renderPdfPages } = await import('../invoices/pdfPages.ts');
      made = await renderPdfPages(await res.arrayBuffer());
      if (live) setState({ pages: made, error: null });
      else made.forEach((p) => URL.revokeObjectURL(p.url));
    })().catch((e: unknown) => live && setState({ pages: null, error: fill(m.forms.renderFailed, { message: e instanceof Error ? e.message : String(e) }) }));
    return () => {
      live = false;
      made.forEach((p) => URL.revokeObjectURL(p.url));
    };
  }, [url, m, fill]);
  return state;
}

/** Each page with the boxes of its fields drawn where they sit; a box moves the focus to its field. */
function Pages({ url, fields, active, onPick, label }: { url: string | null; fields: Field[]; active: number | null; onPick(i: number): void; label: string }) {
  const { m, fill } = useI18n();
  const { pages, error } = usePages(url);
  if (error) return <Alert color="red" role="alert">{error}</Alert>;
  if (!pages)
    return (
      <Stack aria-busy="true" aria-label={m.forms.rendering}>
        <Skeleton height={480} />
      </Stack>
    );
  return (
    <Stack gap="md" aria-label={label} role="region">
      {pages.map((p, n) => (
        <figure key={p.url} style={{ margin: 0 }}>
          <div className="form-page" dir="ltr" data-testid="form-page">
            <img src={p.url} alt={fill(m.forms.pageAlt, { n: n + 1 })} width={p.width} height={p.height} />
            {fields.map((f, i) =>
              f.page === n ? (
                <button
                  key={i}
                  type="button"
                  className="field-box"
                  data-active={active === i}
                  data-testid="field-box"
                  aria-label={`${fill(m.forms.field, { n: i + 1 })}: ${f.label}`}
                  onClick={() => onPick(i)}
                  style={{ top: `${f.box[0] / 10}%`, left: `${f.box[1] / 10}%`, height: `${Math.max(1, f.box[2] - f.box[0]) / 10}%`, width: `${Math.max(1, f.box[3] - f.box[1]) / 10}%` }}
                >
                  <span aria-hidden="true">{i + 1}</span>
                </button>
              ) : null,
            )}
          </div>
          <Text component="figcaption" size="sm" c="dimmed" ta="center">
            {fill(m.forms.page, { n: n + 1 })}
          </Text>
        </figure>
      ))}
    </Stack>
  );
}

function FieldInput({ f, i, onChange, onFocus }: { f: Field; i: number; onChange(v: string): void; onFocus(): void }) {
  const { m, fill } = useI18n();
  const label = `${i + 1}. ${f.label}`;
  const description = `${m.forms.kinds[f.kind]}${f.kind === 'signature' ? ' · ' + m.forms.signatureField : f.kind === 'stamp' ? ' · ' + m.forms.stampField : ''}`;
  if (f.kind === 'checkbox')
    return <Checkbox id={`field-${i}`} label={label} description={description} checked={TICKED.test(f.value.trim())} onChange={(e) => onChange(e.currentTarget.checked ? 'true' : '')} onFocus={onFocus} />;
  if (f.kind === 'signature' || f.kind === 'stamp')
    return (
      <div id={`field-${i}`} tabIndex={-1} aria-label={fill(m.forms.field, { n: i + 1 })}>
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      </div>
    );
  return <TextInput id={`field-${i}`} label={label} description={m.forms.kinds[f.kind]} value={f.value} onChange={(e) => onChange(e.currentTarget.value)} onFocus={onFocus} />;
}

/** The stored signature or stamp image, with an upload to replace it. */
function StoredImage({ kind }: { kind: 'signature' | 'stamp' }) {
  const { m } = useI18n();
  const b = useApi('getBusiness', {});
  const save = useApiMutation('updateBusiness', ['getBusiness']);
  const set = kind === 'signature' ? b.data?.docSignatureSet : b.data?.docStampSet;
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">
        {set ? (kind === 'signature' ? m.forms.signatureStored : m.forms.stampStored) : m.forms.noImage}
      </Text>
      <FileInput
        size="xs"
        accept="image/png"
        label={kind === 'signature' ? m.forms.uploadSignature : m.forms.uploadStamp}
        onChange={(file) => {
          if (file) void fileToBase64(file).then((data) => save.mutate(kind === 'signature' ? { docSignaturePng: data } : { docStampPng: data }));
        }}
      />
      {save.isError && <ErrorAlert error={save.error} />}
    </Stack>
  );
}

export default function FormReview() {
  const { m, fill } = useI18n();
  const { docId = '' } = useParams();
  const doc = useApi('getSignupDocFields', { docId });
  const again = useApiMutation('analyzeSignupDoc', ['getSignupDocFields', 'listSignupDocs']);
  const generate = useApiMutation('generateSignupDoc', ['listSignupDocs', 'getSignupDocFields']);
  const [fields, setFields] = useState<Field[]>([]);
  const [active, setActive] = useState<number | null>(null);
  const [opts, setOpts] = useState({ withSignature: true, withStamp: true, withInitials: false });
  useEffect(() => {
    if (doc.data) setFields(doc.data.fields.map((f) => ({ ...f })));
  }, [doc.data]);
  if (doc.isPending)
    return (
      <>
        <PageTitle>{m.forms.review}</PageTitle>
        <ListSkeleton rows={4} />
      </>
    );
  if (doc.isError) return <ErrorAlert error={doc.error} onRetry={() => void doc.refetch()} />;
  const d = doc.data;
  const pdf = d.format === 'pdf';
  const pick = (i: number) => {
    setActive(i);
    document.getElementById(`field-${i}`)?.focus();
  };
  const has = (k: string) => fields.some((f) => f.kind === k);
  return (
    <>
      <PageTitle
        actions={
          <Button component={Link} to="/forms" variant="default">
            {m.back}
          </Button>
        }
      >
        <span className="wrap-anywhere">{fillNodes(m.forms.reviewTitle, { name: <FileName name={d.fileName} /> })}</span>
      </PageTitle>
      {d.analysisStatus === 'failed' && (
        <Alert color="red" mb="md" role="alert" title={fill(m.forms.analysisFailed, { message: d.analysisError ?? '' })}>
          <Button size="xs" variant="light" color="red" loading={again.isPending} onClick={() => again.mutate({ docId: d.docId })}>
            {m.forms.analyzeAgain}
          </Button>
        </Alert>
      )}
      {again.isError && <ErrorAlert error={again.error} />}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <div style={{ minWidth: 0 }}>
          <Title order={2} size="h4" mb="xs">
            {m.forms.pages}
          </Title>
          {pdf ? <Pages url={d.url} fields={fields} active={active} onPick={pick} label={m.forms.pages} /> : <Text c="dimmed">{m.forms.docxNoPages}</Text>}
        </div>
        <div style={{ minWidth: 0 }}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              generate.mutate({ docId: d.docId, fields: fields.map((f) => ({ label: f.label, value: f.value, kind: f.kind, page: f.page, box: f.box })), ...opts, withInitials: pdf && opts.withInitials });
            }}
          >
            <Stack gap="sm" data-testid="form-fields">
              {!fields.length && <Text c="dimmed">{m.forms.noFields}</Text>}
              {fields.map((f, i) => (
                <FieldInput key={i} f={f} i={i} onFocus={() => setActive(i)} onChange={(v) => setFields((all) => all.map((x, j) => (j === i ? { ...x, value: v } : x)))} />
              ))}
              <Card withBorder padding="sm">
                <Title order={3} size="h6" mb="xs">
                  {m.forms.place}
                </Title>
                <Stack gap="xs">
                  <Checkbox label={m.forms.withSignature} checked={opts.withSignature} onChange={(e) => setOpts({ ...opts, withSignature: e.currentTarget.checked })} disabled={!has('signature')} />
                  {opts.withSignature && has('signature') && <StoredImage kind="signature" />}
                  <Checkbox label={m.forms.withStamp} checked={opts.withStamp} onChange={(e) => setOpts({ ...opts, withStamp: e.currentTarget.checked })} disabled={!has('stamp')} />
                  {opts.withStamp && has('stamp') && <StoredImage kind="stamp" />}
                  <Checkbox label={m.forms.withInitials} description={pdf ? undefined : m.forms.initialsPdfOnly} checked={pdf && opts.withInitials} disabled={!pdf} onChange={(e) => setOpts({ ...opts, withInitials: e.currentTarget.checked })} />
                </Stack>
              </Card>
              {generate.isError && <ErrorAlert error={generate.error} />}
              <Button type="submit" loading={generate.isPending}>
                {m.forms.generate}
              </Button>
            </Stack>
          </form>
        </div>
      </SimpleGrid>
      {generate.isSuccess && <Generated r={generate.data} pdf={pdf} />}
    </>
  );
}

function Generated({ r, pdf }: { r: Output<'generateSignupDoc'>; pdf: boolean }) {
  const { m } = useI18n();
  return (
    <Card withBorder mt="lg" data-testid="generated">
      <Group justify="space-between" wrap="wrap" mb="sm">
        <Title order={2} size="h4" role="status">
          {m.forms.generated}
        </Title>
        <Button component="a" href={r.url} download={r.fileName} data-testid="download-filled">
          {m.forms.downloadFilled}
        </Button>
      </Group>
      <Text size="sm" className="wrap-anywhere" mb="sm">
        <FileName name={r.fileName} />
      </Text>
      {pdf && <Pages url={r.url} fields={[]} active={null} onPick={() => {}} label={m.forms.preview} />}
    </Card>
  );
}

