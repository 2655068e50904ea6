// The keys `ship config set` accepts, apart from the store: the command's declaration (completion of its <key>
// argument) reads them at startup, which must not load the config file's code for every command.

/** What `config set` accepts, with the help text `config set --help` and errors show. */
export const SETTABLE_KEYS = {
  base_url: 'live API base URL including /v1.2',
  test_base_url: 'test API base URL, used with --test or SHIP_TEST=1 (with the test credentials)',
  api_key: 'API key (sent as X-SERVICE-API-KEY); usually set by `ship login`',
  token: 'user token (sent as X-SERVICE-TOKEN); usually set by `ship login`',
  label_format: 'default label format: ZPL, PDF or PNG',
  printer: 'default printer: tcp://HOST:PORT or the name of a printers.NAME entry',
  timeout: 'request timeout in seconds',
  'printers.NAME': 'a named printer, tcp://HOST:PORT',
} as const;
