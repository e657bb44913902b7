import { useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useI18n } from '../../i18n/i18n.tsx';
import { fileToBase64, useApi, useApiMutation } from '../../ui/api.ts';
import { DropZone, Empty, ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { ActionButton } from '../../ui/ActionButton.tsx';
import { call } from '../../api/client.ts';
import { FileName } from '../../ui/FileName.tsx';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Upload a form (PDF or DOCX): the AI finds its fields, then the review screen opens. */
function Upload() {
  const { m, fill } = useI18n();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [err, setErr] = useState<unknown>(null);
  const start = async (file: File | undefined) => {
    if (!file) return;
    setBusy(file.name);
    setErr(null);
    try {
      const mimeType = file.type || (file.name.toLowerCase().endsWith('.docx') ? DOCX : 'application/pdf');
      const r = await call('analyzeSignupDoc', { fileName: file.name, mimeType, dataBase64: await fileToBase64(file) });
      await qc.invalidateQueries({ queryKey: ['listSignupDocs'] });
      navigate(`/forms/${r.docId}`);
    } catch (e) {
      setErr(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card withBorder mb="md">
      <DropZone onFiles={(files) => void start(files[0])}>
        <Stack gap="xs" align="center">
          <Text>{m.forms.uploadHint}</Text>
          <Button onClick={() => input.current?.click()} loading={busy !== null}>
            {m.forms.choose}
          </Button>
          {busy && (
            <Text size="sm" role="status">
              {fill(m.forms.analyzing, { name: busy })}
            </Text>
          )}
        </Stack>
        <input ref={input} type="file" hidden accept={`application/pdf,${DOCX},.docx`} aria-label={m.forms.upload} data-testid="form-input" onChange={(e) => void start(e.currentTarget.files?.[0])} />
      </DropZone>
      {err !== null && <ErrorAlert error={err} />}
    </Card>
  );
}

export default function Forms() {
  const { m, fill, date } = useI18n();
  const docs = useApi('listSignupDocs', {});
  const remove = useApiMutation('deleteSignupDoc', ['listSignupDocs']);
  return (
    <>
      <PageTitle>{m.forms.title}</PageTitle>
      <Upload />
      {remove.isError && <ErrorAlert error={remove.error} />}
      {docs.isPending ? (
        <ListSkeleton rows={3} />
      ) : docs.isError ? (
        <ErrorAlert error={docs.error} onRetry={() => void docs.refetch()} />
      ) : !docs.data.docs.length ? (
        <Empty title={m.forms.empty} body={m.forms.uploadHint} />
      ) : (
        <Stack gap="xs" data-testid="forms-list">
          {docs.data.docs.map((d) => (
            <Card key={d.docId} withBorder padding="sm">
              <Group justify="space-between" wrap="wrap" align="flex-start">
                <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
                  <Anchor component={Link} to={`/forms/${d.docId}`} fw={600} className="wrap-anywhere">
                    <FileName name={d.fileName} />
                  </Anchor>
                  <Group gap={6}>
                    <Badge variant="light" color={d.analysisStatus === 'analyzed' ? 'green' : 'red'} style={{ textTransform: 'none' }}>
                      {d.analysisStatus === 'analyzed' ? fill(m.forms.fields, { n: d.fieldCount }) : m.forms.failed}
                    </Badge>
                    <Badge variant="outline" color="gray">
                      {d.format.toUpperCase()}
                    </Badge>
                    <Text size="xs" c="dimmed">
                      {date(d.createdAt)}
                    </Text>
                  </Group>
                  {d.filled.length > 0 && (
                    <Stack gap={0} mt={4}>
                      <Title order={3} size="h6">
                        {m.forms.filledCopies}
                      </Title>
                      {d.filled.map((f) =>
                        f.url ? (
                          <Anchor key={f.fileId} href={f.url} download={f.fileName} size="sm" className="wrap-anywhere">
                            <FileName name={f.fileName} />
                          </Anchor>
                        ) : null,
                      )}
                    </Stack>
                  )}
                </Stack>
                <Group gap={4}>
                  <Button component={Link} to={`/forms/${d.docId}`} size="compact-sm" variant="light">
                    {m.forms.review}
                  </Button>
                  <ActionButton op="deleteSignupDoc" size="compact-sm" label={`${m.delete} ${d.fileName}`} onRun={() => remove.mutate({ docId: d.docId })} />
                </Group>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
