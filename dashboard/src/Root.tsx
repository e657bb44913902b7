import { lazy, Suspense, useEffect, useState } from 'react';
import { NavLink as RouterNavLink, Outlet, useLocation, useMatches } from 'react-router';
import { useMediaQuery } from '@mantine/hooks';
import { AppShell, Burger, Button, Card, Container, Group, NavLink, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useI18n } from './i18n/i18n.tsx';
import type { Messages } from './i18n/he.ts';
import { useAuth } from './auth.tsx';
import { useApi } from './ui/api.ts';
import { ErrorAlert } from './ui/common.tsx';
import { Bare, LanguageButton } from './ui/Bare.tsx';
// The sign-in code (email link, Google popup) loads only for a signed-out visitor.
const SignIn = lazy(() => import('./SignIn.tsx'));

function FullPageSkeleton() {
  const { m } = useI18n();
  return (
    <Container size="sm" py="xl" aria-busy="true" aria-label={m.loading}>
      <Stack>
        <Skeleton height={36} width="60%" />
        <Skeleton height={120} />
        <Skeleton height={120} />
      </Stack>
    </Container>
  );
}

function Unavailable({ reason }: { reason: string }) {
  const { m, fill } = useI18n();
  return (
    <Bare title={m.signIn.unavailable}>
      <Text>{fill(m.signIn.unavailableWhy, { message: reason })}</Text>
    </Bare>
  );
}

function NoBusiness({ email }: { email: string }) {
  const { m, fill } = useI18n();
  const { signOut } = useAuth();
  return (
    <Bare title={fill(m.noBusiness.title, { email })}>
      <Text>{m.noBusiness.body}</Text>
      <Button onClick={() => void signOut()}>{m.noBusiness.other}</Button>
    </Bare>
  );
}

function Picker({ items }: { items: { businessId: string; businessName: string; role: 'admin' | 'user' }[] }) {
  const { m, fill } = useI18n();
  const { setBusinessId } = useAuth();
  return (
    <Bare title={m.pick.title}>
      <Text>{m.pick.body}</Text>
      <Stack gap="xs">
        {items.map((b) => (
          <Button key={b.businessId} variant="light" size="md" justify="space-between" fullWidth onClick={() => setBusinessId(b.businessId)} rightSection={<Text size="xs">{fill(m.pick.role, { role: m.roles[b.role] })}</Text>}>
            {b.businessName || b.businessId}
          </Button>
        ))}
      </Stack>
    </Bare>
  );
}

/** The menu: part 1's labels are under `nav`; later screens keep theirs in their own block. */
const NAV: { to: string; label: (m: Messages) => string }[] = [
  { to: '/', label: (m) => m.nav.home },
  { to: '/payments', label: (m) => m.nav.payments },
  { to: '/pay', label: (m) => m.pay.nav },
  { to: '/recurring', label: (m) => m.recurring.nav },
  { to: '/suppliers', label: (m) => m.nav.suppliers },
  { to: '/invoices', label: (m) => m.nav.invoices },
  { to: '/reports', label: (m) => m.reports.title },
  { to: '/statements', label: (m) => m.statements.nav },
  { to: '/mailboxes', label: (m) => m.mailboxes.nav },
  { to: '/automations', label: (m) => m.automations.nav },
  { to: '/accountant', label: (m) => m.accountant.title },
  { to: '/employees', label: (m) => m.employees.title },
  { to: '/forms', label: (m) => m.forms.title },
  { to: '/activity', label: (m) => m.nav.activity },
  { to: '/settings', label: (m) => m.nav.settings },
];

/** The app's frame; `businessName` null while myBusinesses is still on its way. */
function Shell({ businessName, several }: { businessName: string | null; several: boolean }) {
  const { m } = useI18n();
  const { signOut, setBusinessId } = useAuth();
  const [opened, setOpened] = useState(false);
  const location = useLocation();
  useEffect(() => setOpened(false), [location.pathname]);
  // On a phone the closed menu is only moved off-screen: inert keeps its links out of Tab and screen readers.
  const phone = useMediaQuery('(max-width: 47.99em)');
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <a className="skip-link" href="#main">
        {m.skipToContent}
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger opened={opened} onClick={() => setOpened((o) => !o)} hiddenFrom="sm" size="sm" aria-label={m.menu} />
            {businessName === null ? (
              <Skeleton height={18} width={120} aria-hidden="true" />
            ) : (
              <Text fw={700} truncate>
                {businessName || m.appName}
              </Text>
            )}
          </Group>
          <Group gap={4} wrap="nowrap">
            <LanguageButton />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={m.menu} inert={phone && !opened}>
        <nav>
          {NAV.map((n) => (
            <NavLink key={n.to} component={RouterNavLink} to={n.to} end={n.to === '/'} label={n.label(m)} />
          ))}
        </nav>
        <Stack mt="auto" gap="xs">
          {several && (
            <UnstyledButton onClick={() => setBusinessId(null)} px="sm" py={6}>
              <Text size="sm">{m.pick.switch}</Text>
            </UnstyledButton>
          )}
          <Button variant="default" onClick={() => void signOut()}>
            {m.signOut}
          </Button>
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <main id="main" tabIndex={-1} style={{ maxWidth: 1100, marginInline: 'auto' }}>
          <Outlet />
        </main>
      </AppShell.Main>
    </AppShell>
  );
}

/**
 * The member's businesses decide what follows: none, a picker, or the app in the one chosen. A business
 * remembered from the last visit opens the app at once, so the screen's own requests run beside myBusinesses
 * instead of after it; should myBusinesses no longer list it, the gate falls back to the picker or the
 * no-business page.
 */
function BusinessGate({ email }: { email: string }) {
  const { businessId, setBusinessId } = useAuth();
  const mine = useApi('myBusinesses', {}, { staleTime: 60_000 });
  const items = mine.data?.items ?? [];
  const chosen = items.find((b) => b.businessId === businessId) ?? (items.length === 1 ? items[0] : undefined);
  useEffect(() => {
    if (chosen && chosen.businessId !== businessId) setBusinessId(chosen.businessId);
  }, [chosen, businessId, setBusinessId]);
  if (mine.isPending) return businessId ? <Shell businessName={null} several={false} /> : <FullPageSkeleton />;
  if (mine.isError)
    return (
      <Container size="sm" py="xl">
        <ErrorAlert error={mine.error} onRetry={() => void mine.refetch()} />
      </Container>
    );
  if (!items.length) return <NoBusiness email={email} />;
  if (!chosen) return <Picker items={items} />;
  if (chosen.businessId !== businessId) return <FullPageSkeleton />;
  return <Shell businessName={chosen.businessName} several={items.length > 1} />;
}

export function Root() {
  const { state } = useAuth();
  const matches = useMatches();
  const needsBusiness = matches.some((m) => (m.handle as { business?: boolean } | undefined)?.business);
  if (state.status === 'loading') return <FullPageSkeleton />;
  if (state.status === 'unavailable') return <Unavailable reason={state.reason} />;
  if (state.status === 'signedOut')
    return (
      <Suspense fallback={<FullPageSkeleton />}>
        <SignIn auth={state.auth} emulator={state.emulator} />
      </Suspense>
    );
  // The pages outside the app (the invite) wait for the SDK's own restore; the app's screens start on the persisted token.
  if (!needsBusiness) return state.status === 'restoring' ? <FullPageSkeleton /> : <Outlet />;
  return <BusinessGate email={state.status === 'restoring' ? state.email : (state.user.email ?? '')} />;
}
