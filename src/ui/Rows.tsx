// Renders pre-laid-out rows: one terminal line each, already cut to the width, or (`wide`, for
// history) with long words and code lines left whole for the terminal to wrap, so a copy of them
// from the scrollback is one line.
import { Box, Text } from 'ink';
import { hasHidden } from '../core/hidden_text.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { rowWidth, type Row, type Span } from './text_layout.ts';
import { colorEnabled, hyperlinksEnabled, themeColor } from './theme.ts';

// Schemes a hyperlink may have; anything else is shown as text only.
const LINKABLE = /^(?:https?|file|mailto):[^\s\u0000-\u001F\u007F-\u009F]+$/;

/** The span's text, inside an OSC 8 hyperlink when it links somewhere a terminal may open. */
function linked(s: Span): string {
  const text = forTerminal(s.text);
  // a target that hides a character goes nowhere: what opens would not be what is shown
  if (!s.link || !hyperlinksEnabled() || !LINKABLE.test(s.link) || hasHidden(s.link)) return text;
  return `\u001B]8;;${s.link}\u001B\\${text}\u001B]8;;\u001B\\`;
}

export function RowLine({ row }: { row: Row }) {
  const color = colorEnabled();
  return (
    <Text wrap="truncate-end">
      {row.length === 0
        ? ' '
        : row.map((s, i) => (
            <Text
              key={i}
              color={themeColor(s.color)}
              bold={s.bold}
              dimColor={color && s.dim}
              italic={color && s.italic}
              underline={color && s.underline}
              inverse={s.inverse}
              strikethrough={color && s.strike}
            >
              {linked(s)}
            </Text>
          ))}
    </Text>
  );
}

export function Rows({ rows, wide }: { rows: Row[]; wide?: number }) {
  // history: as wide as its widest row, so nothing is cut (the terminal wraps what is wider)
  const width = wide === undefined ? undefined : Math.max(wide, ...rows.map(rowWidth));
  return (
    <Box flexDirection="column" width={width}>
      {rows.map((r, i) => (
        <RowLine key={i} row={r} />
      ))}
    </Box>
  );
}
