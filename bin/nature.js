#!/usr/bin/env node
// The operator command, built by `npm ci` (prepare) into dist/.
import '../dist/src/cli/main.js';
