import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { categoryName } from '../../ui/names.ts';
import { useI18n } from '../../i18n/i18n.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert, ListSkeleton, PageTitle } from '../../ui/common.tsx';
import { InvoicesNav } from './invoicesNav.tsx';

export default function Categories() {
  const { m } = useI18n();
  const cats = useApi('categoriesList', {});
  const rules = useApi('vendorRulesList', {});
  const setCat = useApiMutation('vendorCategoryRuleSet', ['vendorRulesList']);
  const setPay = useApiMutation('vendorPayRuleSet', ['vendorRulesList']);
  return (
    <>
      <PageTitle>{m.invoices.title}</PageTitle>
      <InvoicesNav />
      {[setCat, setPay].find((x) => x.isError) && <ErrorAlert error={[setCat, setPay].find((x) => x.isError)!.error} />}
      <Title order={2} size="h4" mb="xs">
        {m.categories.title}
      </Title>
      {cats.isPending ? <ListSkeleton rows={3} /> : cats.isError ? <ErrorAlert error={cats.error} onRetry={() => void cats.refetch()} /> : (
        <Group gap="xs" mb="lg">
          {cats.data.items.map((c) => (
            <Text key={c.id} size="sm" px="sm" py={4} bg="gray.1" style={{ borderRadius: 6 }}>
              {categoryName(m, c)}
            </Text>
          ))}
        </Group>
      )}
      <Title order={2} size="h4" mb="xs">
        {m.categories.rules}
      </Title>
      {rules.isPending ? <ListSkeleton rows={2} /> : rules.isError ? <ErrorAlert error={rules.error} onRetry={() => void rules.refetch()} /> : (
        <Stack gap="xs" mb="lg">
          {!rules.data.categoryRules.length && <Text c="dimmed">{m.categories.empty}</Text>}
          {rules.data.categoryRules.map((r) => (
            <Card key={r.key} withBorder padding="sm">
              <Group justify="space-between">
                <Text>
                  {r.name} → {r.category ? categoryName(m, { id: r.category, label: r.label }) : r.label}
                </Text>
                <Button size="compact-sm" variant="default" onClick={() => setCat.mutate({ key: r.key, category: '' })}>
                  {m.categories.forget}
                </Button>
              </Group>
            </Card>
          ))}
          <Title order={2} size="h4" mt="md">
            {m.categories.payRules}
          </Title>
          {!rules.data.payRules.length && <Text c="dimmed">{m.categories.empty}</Text>}
          {rules.data.payRules.map((r) => (
            <Card key={r.key} withBorder padding="sm">
              <Group justify="space-between">
                <Text>
                  {r.name} → {m.categories[r.rule]}
                </Text>
                <Button size="compact-sm" variant="default" onClick={() => setPay.mutate({ key: r.key, rule: '' })}>
                  {m.categories.forget}
                </Button>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
