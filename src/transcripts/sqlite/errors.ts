/** The file is not a database, or its structure is damaged. */
export class SqliteFormatError extends Error {}
