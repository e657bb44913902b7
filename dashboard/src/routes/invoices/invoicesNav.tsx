import { useLocation, useNavigate } from 'react-router';
import { Tabs } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';

const TABS = [
  { to: '/invoices', key: 'list' },
  { to: '/invoices/folders', key: 'folders' },
  { to: '/invoices/categories', key: 'categories' },
  { to: '/invoices/software', key: 'software' },
] as const;

/** The invoices section's screens, each at its own URL. */
export function InvoicesNav() {
  const { m } = useI18n();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  return (
    <Tabs value={pathname} onChange={(v) => v && navigate(v)} mb="md">
      <Tabs.List style={{ flexWrap: 'wrap' }}>
        {TABS.map((t) => (
          <Tabs.Tab key={t.to} value={t.to}>
            {m.invoices.tabs[t.key]}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}
