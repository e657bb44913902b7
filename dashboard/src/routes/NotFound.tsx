import { Link } from 'react-router';
import { Button } from '@mantine/core';
import { useI18n } from '../i18n/i18n.tsx';
import { Empty, PageTitle } from '../ui/common.tsx';

export default function NotFound() {
  const { m } = useI18n();
  return (
    <>
      <PageTitle>{m.error['not-found']}</PageTitle>
      <Empty title={m.error.notFoundPage} action={<Button component={Link} to="/">{m.nav.home}</Button>} />
    </>
  );
}
