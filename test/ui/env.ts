// Imported first by every UI test: chalk decides on colour when it loads, and snapshots are
// plain text on both runtimes.
import process from 'node:process';

process.env.FORCE_COLOR = '0';
delete process.env.NO_COLOR;
