import { Button, Card, Container, Group, Stack, Title } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';

/** The language switch (Hebrew ⇄ English), on every page. */
export function LanguageButton() {
  const { m, lang, setLang } = useI18n();
  return (
    <Button variant="subtle" size="compact-sm" onClick={() => setLang(lang === 'he' ? 'en' : 'he')} title={m.languageLabel} lang={lang === 'he' ? 'en' : 'he'}>
      {m.language}
    </Button>
  );
}

/** A centered card for the pages outside the app's frame (sign-in, no business, picker, invite). */
export function Bare({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Container size={480} py="xl">
      <Group justify="flex-end" mb="sm">
        <LanguageButton />
      </Group>
      <Card withBorder radius="md" padding="lg">
        <main id="main">
          <Stack>
            <Title order={1} size="h2">
              {title}
            </Title>
            {children}
          </Stack>
        </main>
      </Card>
    </Container>
  );
}
