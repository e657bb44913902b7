import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { initialLang, loadLang } from './i18n/i18n.tsx';
import '@mantine/core/styles.css';
import './app.css';

// An owner who chose English gets it from the first paint (the catalogue is loaded on demand).
void loadLang(initialLang()).then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
