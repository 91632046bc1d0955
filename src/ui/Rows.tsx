// Renders pre-laid-out rows: one terminal line each, already cut to the width.
import { Box, Text } from 'ink';
import { type Row } from './text_layout.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { colorEnabled, themeColor } from './theme.ts';

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
              inverse={s.inverse}
              strikethrough={color && s.strike}
            >
              {forTerminal(s.text)}
            </Text>
          ))}
    </Text>
  );
}

export function Rows({ rows }: { rows: Row[] }) {
  return (
    <Box flexDirection="column">
      {rows.map((r, i) => (
        <RowLine key={i} row={r} />
      ))}
    </Box>
  );
}
