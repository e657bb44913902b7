import { useCallback, useEffect, useMemo } from 'react';
import { createBrowserRouter, Navigate, Outlet } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { DirectionProvider, MantineProvider, createTheme, useDirection, type CSSVariablesResolver } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nProvider, initialLang, useI18n } from './i18n/i18n.tsx';
import { AuthProvider } from './auth.tsx';
import { Root } from './Root.tsx';
import { ApiError } from './api/client.ts';

const theme = createTheme({
  primaryColor: 'blue',
  // Darker shades than the defaults, so text on light backgrounds meets WCAG AA contrast.
  primaryShade: 8,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Arial, sans-serif',
});

// A field's error text and its invalid input are in the error color: red.9 meets WCAG AA on white, the default does not.
const cssVariables: CSSVariablesResolver = () => ({ variables: {}, light: { '--mantine-color-error': 'var(--mantine-color-red-9)' }, dark: {} });

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // The API's own refusals are answers, not glitches: only network and server trouble is retried.
      retry: (n, e) => n < 2 && (!(e instanceof ApiError) || e.status === 0 || e.status >= 500),
    },
  },
});

/** Routes are split: each screen's code loads when it is first opened. */
const lazy = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await load()).default });

const router = createBrowserRouter([
  {
    element: <Root />,
    hydrateFallbackElement: null,
    children: [
      { path: '/invite', lazy: lazy(() => import('./routes/team/Invite.tsx')) },
      { path: '/invite/:token', lazy: lazy(() => import('./routes/team/Invite.tsx')) },
      {
        element: <Outlet />,
        handle: { business: true },
        children: [
          { index: true, lazy: lazy(() => import('./routes/account/Home.tsx')) },
          { path: '/payments', lazy: lazy(() => import('./routes/payments/Payments.tsx')) },
          { path: '/payments/new', lazy: lazy(() => import('./routes/payments/PaymentNew.tsx')) },
          { path: '/payments/incoming', lazy: lazy(() => import('./routes/payments/Incoming.tsx')) },
          { path: '/payments/:id', lazy: lazy(() => import('./routes/payments/Payment.tsx')) },
          { path: '/pay', lazy: lazy(() => import('./routes/payruns/Pay.tsx')) },
          { path: '/pay/runs/:runId', lazy: lazy(() => import('./routes/payruns/PayRun.tsx')) },
          { path: '/recurring', lazy: lazy(() => import('./routes/recurring/Recurring.tsx')) },
          { path: '/suppliers', lazy: lazy(() => import('./routes/suppliers/Suppliers.tsx')) },
          { path: '/suppliers/:key', lazy: lazy(() => import('./routes/suppliers/Supplier.tsx')) },
          { path: '/invoices', lazy: lazy(() => import('./routes/invoices/Invoices.tsx')) },
          { path: '/invoices/folders', lazy: lazy(() => import('./routes/folders/Folders.tsx')) },
          { path: '/invoices/categories', lazy: lazy(() => import('./routes/invoices/Categories.tsx')) },
          { path: '/invoices/software', lazy: lazy(() => import('./routes/software/Software.tsx')) },
          { path: '/invoices/:docId', lazy: lazy(() => import('./routes/invoices/Invoice.tsx')) },
          { path: '/settings', element: <Navigate to="/settings/profile" replace /> },
          { path: '/settings/:tab', lazy: lazy(() => import('./routes/account/Settings.tsx')) },
          // The chat consent's return page links {dashboard}/integrations (surfaces/oauth/chatCallback.ts).
          { path: '/integrations', element: <Navigate to="/settings/integrations" replace /> },
          { path: '/activity', lazy: lazy(() => import('./routes/activity/Activity.tsx')) },
          { path: '/statements', lazy: lazy(() => import('./routes/statements/Statements.tsx')) },
          { path: '/statements/:tab', lazy: lazy(() => import('./routes/statements/Statements.tsx')) },
          { path: '/mailboxes', lazy: lazy(() => import('./routes/mailboxes/Mailboxes.tsx')) },
          { path: '/mailboxes/:tab', lazy: lazy(() => import('./routes/mailboxes/Mailboxes.tsx')) },
          { path: '/automations', lazy: lazy(() => import('./routes/mailboxes/Automations.tsx')) },
          { path: '/employees', lazy: lazy(() => import('./routes/employees/Employees.tsx')) },
          { path: '/employees/import', lazy: lazy(() => import('./routes/employees/EmployeesImport.tsx')) },
          { path: '/employees/new', lazy: lazy(() => import('./routes/employees/EmployeeEdit.tsx')) },
          { path: '/employees/:id', lazy: lazy(() => import('./routes/employees/EmployeeEdit.tsx')) },
          { path: '/forms', lazy: lazy(() => import('./routes/signupDocs/Forms.tsx')) },
          { path: '/forms/:docId', lazy: lazy(() => import('./routes/signupDocs/FormReview.tsx')) },
          { path: '/accountant', lazy: lazy(() => import('./routes/accountant/Accountant.tsx')) },
          { path: '/reports', lazy: lazy(() => import('./routes/reports/Reports.tsx')) },
          { path: '*', lazy: lazy(() => import('./routes/NotFound.tsx')) },
        ],
      },
    ],
  },
]);

/** Keeps Mantine's direction with the language (Hebrew right to left). */
function DirectionSync() {
  const { dir } = useI18n();
  const { setDirection } = useDirection();
  useEffect(() => setDirection(dir), [dir, setDirection]);
  return null;
}

function Providers() {
  const { dir } = useI18n();
  const onSignedOut = useCallback(() => queryClient.clear(), []);
  return (
    <DirectionProvider initialDirection={dir} detectDirection={false}>
      <DirectionSync />
      <MantineProvider theme={theme} cssVariablesResolver={cssVariables}>
        <QueryClientProvider client={queryClient}>
          <AuthProvider onSignedOut={onSignedOut}>
            <RouterProvider router={router} />
          </AuthProvider>
        </QueryClientProvider>
      </MantineProvider>
    </DirectionProvider>
  );
}

export function App() {
  useMemo(() => {
    const lang = initialLang();
    document.documentElement.lang = lang;
    document.documentElement.dir = lang === 'he' ? 'rtl' : 'ltr';
  }, []);
  return (
    <I18nProvider>
      <Providers />
    </I18nProvider>
  );
}
