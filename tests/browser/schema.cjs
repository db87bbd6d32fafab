// SPDX-License-Identifier: GPL-2.0
/*
 * Check a JSON file against a JSON schema (draft-07) with ajv:
 *
 *   node schema.cjs SCHEMA.json FILE.json
 *
 * Prints "valid" and exits 0, or prints ajv's errors and exits 1.
 */
'use strict';

const fs = require('fs');
const Ajv = require('ajv');

const [schemaPath, filePath] = process.argv.slice(2);
if (!schemaPath || !filePath) {
	process.stderr.write('usage: schema.cjs SCHEMA.json FILE.json\n');
	process.exit(2);
}
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const data = JSON.parse(fs.readFileSync(filePath, 'utf8'));
/* speedscope's schema is one definition among many: check the file's */
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema.$ref ? schema : { ...schema, $ref: '#/definitions/FileFormat.File' });
if (validate(data)) {
	process.stdout.write('valid\n');
} else {
	process.stdout.write(JSON.stringify(validate.errors, null, 1) + '\ninvalid\n');
	process.exit(1);
}
