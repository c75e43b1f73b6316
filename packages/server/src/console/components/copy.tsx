/** A button that copies a value (a fingerprint, a SHA) with the console's script, and that script's tag. */
import { consoleJsVersion } from '../static.ts';

/** `Copy` beside a value; it does nothing without the script (`CopyScript`), the value stays selectable. */
export function CopyButton({ text, what }: { text: string; what: string }) {
  return (
    <button type="button" class="copy" data-copy={text} aria-label={`Copy the ${what}`}>
      Copy
    </button>
  );
}

/** The console's script (static.ts), once on a page that has copy buttons: the Content-Security-Policy allows only files of the console. */
export const CopyScript = ({ base }: { base: string }) => <script src={`${base}/static/console.js?v=${consoleJsVersion}`} defer />;
