//! curl's command line: one table of options (each entry: names, argument kind, help text,
//! help categories) and the parser with curl's syntax rules: combined short flags (`-sSL`),
//! attached and separate arguments, `--no-` negation, `--` and options anywhere, `-K` config
//! files, `~/.curlrc` unless `-q` comes first, and `--next`.
//!
//! Parsing validates and stores; `operate` turns the stored settings into transfers.

use std::path::PathBuf;

use oxcurl_core::options::{FtpCcc, HttpVersionPref};
use oxcurl_core::proxy::ProxyKind;
use oxcurl_core::tls::{TlsOptions, TlsVersion};

/// What an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A switch; `--no-NAME` turns it off.
    Bool,
    /// A switch that cannot be negated (`-v` style actions like `--next`).
    Action,
    /// Takes one argument.
    Arg,
    /// A switch that is on by default: listed in help as `--no-NAME`, set by both forms.
    NoBool,
}

/// One command-line option.
#[derive(Debug)]
pub struct Opt {
    pub long: &'static str,
    pub short: Option<char>,
    pub kind: Kind,
    /// Argument placeholder shown in help (`<file>`), empty for switches.
    pub arg: &'static str,
    pub help: &'static str,
    /// Help categories (space-separated), "important" for the short `--help`.
    pub cats: &'static str,
}

macro_rules! opts {
    ($( ($long:literal, $short:expr, $kind:ident, $arg:literal, $help:literal, $cats:literal) ),* $(,)?) => {
        /// Every option oxcurl accepts, sorted by long name.
        pub static OPTIONS: &[Opt] = &[ $( Opt { long: $long, short: $short, kind: Kind::$kind, arg: $arg, help: $help, cats: $cats }, )* ];
    };
}

opts![
    (
        "abstract-unix-socket",
        None,
        Arg,
        "<path>",
        "Connect via abstract Unix domain socket",
        "connection"
    ),
    ("alpn", None, Bool, "", "Enable the ALPN TLS extension", ""),
    (
        "alt-svc",
        None,
        Arg,
        "<filename>",
        "Enable alt-svc with this cache file",
        "http"
    ),
    (
        "anyauth",
        None,
        Bool,
        "",
        "Pick any authentication method",
        "auth http proxy"
    ),
    (
        "append",
        Some('a'),
        Bool,
        "",
        "Append to target file when uploading",
        "ftp sftp"
    ),
    (
        "aws-sigv4",
        None,
        Arg,
        "<provider1[:prvdr2[:reg[:srv]]]>",
        "AWS V4 signature auth",
        "auth http"
    ),
    ("basic", None, Bool, "", "HTTP Basic Authentication", "auth"),
    (
        "buffer",
        None,
        Bool,
        "",
        "Enable buffering of the output stream",
        ""
    ),
    (
        "ca-native",
        None,
        Bool,
        "",
        "Load CA certs from the OS",
        "tls"
    ),
    (
        "cacert",
        None,
        Arg,
        "<file>",
        "CA certificate to verify peer against",
        "tls"
    ),
    (
        "capath",
        None,
        Arg,
        "<dir>",
        "CA directory to verify peer against",
        "tls"
    ),
    (
        "cert",
        Some('E'),
        Arg,
        "<certificate[:password]>",
        "Client certificate file and password",
        "tls"
    ),
    (
        "cert-status",
        None,
        Bool,
        "",
        "Verify server cert status OCSP-staple",
        "tls"
    ),
    (
        "cert-type",
        None,
        Arg,
        "<type>",
        "Certificate type (DER/PEM/ENG/PROV/P12)",
        "tls"
    ),
    (
        "ciphers",
        None,
        Arg,
        "<list>",
        "TLS 1.2 (1.1, 1.0) ciphers to use",
        "tls"
    ),
    (
        "clobber",
        None,
        NoBool,
        "",
        "Do not overwrite files that already exist",
        "output"
    ),
    (
        "compressed",
        None,
        Bool,
        "",
        "Request compressed response",
        "http"
    ),
    (
        "compressed-ssh",
        None,
        Bool,
        "",
        "Enable SSH compression",
        "scp ssh"
    ),
    (
        "config",
        Some('K'),
        Arg,
        "<file>",
        "Read config from a file",
        "curl"
    ),
    (
        "connect-timeout",
        None,
        Arg,
        "<seconds>",
        "Maximum time allowed to connect",
        "connection timeout"
    ),
    (
        "connect-to",
        None,
        Arg,
        "<HOST1:PORT1:HOST2:PORT2>",
        "Connect to host2 instead of host1",
        "connection dns"
    ),
    (
        "continue-at",
        Some('C'),
        Arg,
        "<offset>",
        "Resumed transfer offset",
        "connection"
    ),
    (
        "cookie",
        Some('b'),
        Arg,
        "<data|filename>",
        "Send cookies from string/load from file",
        "http"
    ),
    (
        "cookie-jar",
        Some('c'),
        Arg,
        "<filename>",
        "Save cookies to <filename> after operation",
        "http"
    ),
    (
        "create-dirs",
        None,
        Bool,
        "",
        "Create necessary local directory hierarchy",
        "output"
    ),
    (
        "create-file-mode",
        None,
        Arg,
        "<mode>",
        "File mode for created files",
        "file scp sftp upload"
    ),
    (
        "crlf",
        None,
        Bool,
        "",
        "Convert LF to CRLF in upload",
        "ftp smtp"
    ),
    (
        "crlfile",
        None,
        Arg,
        "<file>",
        "Certificate Revocation list",
        "tls"
    ),
    (
        "curves",
        None,
        Arg,
        "<list>",
        "(EC) TLS key exchange algorithms to request",
        "tls"
    ),
    (
        "data",
        Some('d'),
        Arg,
        "<data>",
        "HTTP POST data",
        "important http post upload"
    ),
    (
        "data-ascii",
        None,
        Arg,
        "<data>",
        "HTTP POST ASCII data",
        "http post upload"
    ),
    (
        "data-binary",
        None,
        Arg,
        "<data>",
        "HTTP POST binary data",
        "http post upload"
    ),
    (
        "data-raw",
        None,
        Arg,
        "<data>",
        "HTTP POST data, '@' allowed",
        "http post upload"
    ),
    (
        "data-urlencode",
        None,
        Arg,
        "<data>",
        "HTTP POST data URL encoded",
        "http post upload"
    ),
    (
        "delegation",
        None,
        Arg,
        "<LEVEL>",
        "GSS-API delegation permission",
        "auth"
    ),
    (
        "digest",
        None,
        Bool,
        "",
        "HTTP Digest Authentication",
        "auth http proxy"
    ),
    ("disable", Some('q'), Bool, "", "Disable .curlrc", "curl"),
    (
        "disable-eprt",
        None,
        Bool,
        "",
        "Inhibit using EPRT or LPRT",
        "ftp"
    ),
    ("disable-epsv", None, Bool, "", "Inhibit using EPSV", "ftp"),
    (
        "disallow-username-in-url",
        None,
        Bool,
        "",
        "Disallow username in URL",
        "curl"
    ),
    (
        "dns-interface",
        None,
        Arg,
        "<interface>",
        "Interface to use for DNS requests",
        "dns"
    ),
    (
        "dns-ipv4-addr",
        None,
        Arg,
        "<address>",
        "IPv4 address to use for DNS requests",
        "dns"
    ),
    (
        "dns-ipv6-addr",
        None,
        Arg,
        "<address>",
        "IPv6 address to use for DNS requests",
        "dns"
    ),
    (
        "dns-servers",
        None,
        Arg,
        "<addresses>",
        "DNS server addrs to use",
        "dns"
    ),
    (
        "doh-cert-status",
        None,
        Bool,
        "",
        "Verify DoH server cert status OCSP-staple",
        "dns tls"
    ),
    (
        "doh-insecure",
        None,
        Bool,
        "",
        "Allow insecure DoH server connections",
        "dns tls"
    ),
    (
        "doh-url",
        None,
        Arg,
        "<URL>",
        "Resolve hostnames over DoH",
        "dns"
    ),
    (
        "dump-ca-embed",
        None,
        Bool,
        "",
        "Write the embedded CA bundle to standard output",
        "http proxy tls"
    ),
    (
        "dump-header",
        Some('D'),
        Arg,
        "<filename>",
        "Write the received headers to <filename>",
        "ftp http"
    ),
    ("ech", None, Arg, "<config>", "Configure ECH", "tls"),
    (
        "egd-file",
        None,
        Arg,
        "<file>",
        "EGD socket path for random data",
        "deprecated"
    ),
    ("engine", None, Arg, "<name>", "Crypto engine to use", "tls"),
    (
        "etag-compare",
        None,
        Arg,
        "<file>",
        "Load ETag from file",
        "http"
    ),
    (
        "etag-save",
        None,
        Arg,
        "<file>",
        "Parse incoming ETag and save to a file",
        "http"
    ),
    (
        "expect100-timeout",
        None,
        Arg,
        "<seconds>",
        "How long to wait for 100-continue",
        "http timeout"
    ),
    (
        "fail",
        Some('f'),
        Bool,
        "",
        "Fail fast with no output on HTTP errors",
        "important http"
    ),
    (
        "fail-early",
        None,
        Bool,
        "",
        "Fail on first transfer error",
        "curl global"
    ),
    (
        "fail-with-body",
        None,
        Bool,
        "",
        "Fail on HTTP errors but save the body",
        "http output"
    ),
    (
        "false-start",
        None,
        Bool,
        "",
        "Enable TLS False Start",
        "tls"
    ),
    (
        "form",
        Some('F'),
        Arg,
        "<name=content>",
        "Specify multipart MIME data",
        "http imap post smtp upload"
    ),
    (
        "form-escape",
        None,
        Bool,
        "",
        "Escape form fields using backslash",
        "http post upload"
    ),
    (
        "form-string",
        None,
        Arg,
        "<name=string>",
        "Specify multipart MIME data",
        "http imap post smtp upload"
    ),
    (
        "ftp-account",
        None,
        Arg,
        "<data>",
        "Account data string",
        "auth ftp"
    ),
    (
        "ftp-alternative-to-user",
        None,
        Arg,
        "<command>",
        "String to replace USER [name]",
        "ftp"
    ),
    (
        "ftp-create-dirs",
        None,
        Bool,
        "",
        "Create the remote dirs if not present",
        "ftp sftp"
    ),
    (
        "ftp-method",
        None,
        Arg,
        "<method>",
        "Control CWD usage",
        "ftp"
    ),
    (
        "ftp-pasv",
        None,
        Bool,
        "",
        "Send PASV/EPSV instead of PORT",
        "ftp"
    ),
    (
        "ftp-port",
        Some('P'),
        Arg,
        "<address>",
        "Send PORT instead of PASV",
        "ftp"
    ),
    ("ftp-pret", None, Bool, "", "Send PRET before PASV", "ftp"),
    (
        "ftp-skip-pasv-ip",
        None,
        Bool,
        "",
        "Skip the IP address for PASV",
        "ftp"
    ),
    ("ftp-ssl", None, Bool, "", "", ""),
    (
        "ftp-ssl-ccc",
        None,
        Bool,
        "",
        "Send CCC after authenticating",
        "ftp tls"
    ),
    (
        "ftp-ssl-ccc-mode",
        None,
        Arg,
        "<active/passive>",
        "Set CCC mode",
        "ftp tls"
    ),
    (
        "ftp-ssl-control",
        None,
        Bool,
        "",
        "Require TLS for login, clear for transfer",
        "ftp tls"
    ),
    ("ftp-ssl-reqd", None, Bool, "", "", ""),
    (
        "get",
        Some('G'),
        Bool,
        "",
        "Put the post data in the URL and use GET",
        "http"
    ),
    (
        "globoff",
        Some('g'),
        Bool,
        "",
        "Disable URL globbing with {} and []",
        "curl"
    ),
    (
        "happy-eyeballs-timeout-ms",
        None,
        Arg,
        "<ms>",
        "Time for IPv6 before IPv4",
        "connection timeout"
    ),
    (
        "haproxy-clientip",
        None,
        Arg,
        "<ip>",
        "Set address in HAProxy PROXY",
        "http proxy"
    ),
    (
        "haproxy-protocol",
        None,
        Bool,
        "",
        "Send HAProxy PROXY protocol v1 header",
        "http proxy"
    ),
    (
        "head",
        Some('I'),
        Bool,
        "",
        "Show document info only",
        "file ftp http"
    ),
    (
        "header",
        Some('H'),
        Arg,
        "<header/@file>",
        "Pass custom header(s) to server",
        "http imap smtp"
    ),
    (
        "help",
        Some('h'),
        Action,
        "<subject>",
        "Get help for commands",
        "important curl"
    ),
    (
        "hostpubmd5",
        None,
        Arg,
        "<md5>",
        "Acceptable MD5 hash of host public key",
        "scp sftp ssh"
    ),
    (
        "hostpubsha256",
        None,
        Arg,
        "<sha256>",
        "Acceptable SHA256 hash of host public key",
        "scp sftp ssh"
    ),
    (
        "hsts",
        None,
        Arg,
        "<filename>",
        "Enable HSTS with this cache file",
        "http"
    ),
    (
        "http0.9",
        None,
        Bool,
        "",
        "Allow HTTP/0.9 responses",
        "http"
    ),
    ("http1.0", Some('0'), Action, "", "Use HTTP/1.0", "http"),
    ("http1.1", None, Action, "", "Use HTTP/1.1", "http"),
    ("http2", None, Bool, "", "Use HTTP/2", "http"),
    (
        "http2-prior-knowledge",
        None,
        Bool,
        "",
        "Use HTTP/2 without HTTP/1.1 Upgrade",
        "http"
    ),
    ("http3", None, Bool, "", "Use HTTP/3", "http"),
    ("http3-only", None, Bool, "", "Use HTTP/3 only", "http"),
    (
        "ignore-content-length",
        None,
        Bool,
        "",
        "Ignore the size of the remote resource",
        "ftp http"
    ),
    (
        "include",
        None,
        Bool,
        "",
        "Include response headers in output",
        ""
    ),
    (
        "insecure",
        Some('k'),
        Bool,
        "",
        "Allow insecure server connections",
        "scp sftp ssh tls"
    ),
    (
        "interface",
        None,
        Arg,
        "<name>",
        "Use network interface",
        "connection"
    ),
    (
        "ip-tos",
        None,
        Arg,
        "<string>",
        "Set IP Type of Service or Traffic Class",
        "connection"
    ),
    (
        "ipfs-gateway",
        None,
        Arg,
        "<URL>",
        "Gateway for IPFS",
        "curl"
    ),
    (
        "ipv4",
        Some('4'),
        Action,
        "",
        "Resolve names to IPv4 addresses",
        "connection dns"
    ),
    (
        "ipv6",
        Some('6'),
        Action,
        "",
        "Resolve names to IPv6 addresses",
        "connection dns"
    ),
    (
        "json",
        None,
        Arg,
        "<data>",
        "HTTP POST JSON",
        "http post upload"
    ),
    (
        "junk-session-cookies",
        Some('j'),
        Bool,
        "",
        "Ignore session cookies read from file",
        "http"
    ),
    ("keepalive", None, Bool, "", "Use TCP keepalive", ""),
    (
        "keepalive-cnt",
        None,
        Arg,
        "<integer>",
        "Maximum number of keepalive probes",
        "connection"
    ),
    (
        "keepalive-time",
        None,
        Arg,
        "<seconds>",
        "Interval time for keepalive probes",
        "connection timeout"
    ),
    ("key", None, Arg, "<key>", "Private key filename", "ssh tls"),
    (
        "key-type",
        None,
        Arg,
        "<type>",
        "Private key file type (DER/PEM/ENG)",
        "tls"
    ),
    (
        "krb",
        None,
        Arg,
        "<level>",
        "Enable Kerberos with security <level>",
        "ftp"
    ),
    (
        "libcurl",
        None,
        Arg,
        "<file>",
        "Generate libcurl code for this command line",
        "curl global"
    ),
    (
        "limit-rate",
        None,
        Arg,
        "<speed>",
        "Limit transfer speed to RATE",
        "connection"
    ),
    (
        "list-only",
        Some('l'),
        Bool,
        "",
        "List only mode",
        "file ftp pop3 sftp"
    ),
    (
        "local-port",
        None,
        Arg,
        "<range>",
        "Use a local port number within RANGE",
        "connection"
    ),
    ("location", Some('L'), Bool, "", "Follow redirects", "http"),
    (
        "location-trusted",
        None,
        Bool,
        "",
        "As --location, but send secrets to other hosts",
        "auth http"
    ),
    (
        "login-options",
        None,
        Arg,
        "<options>",
        "Server login options",
        "auth imap ldap pop3 smtp"
    ),
    (
        "mail-auth",
        None,
        Arg,
        "<address>",
        "Originator address of the original email",
        "smtp"
    ),
    (
        "mail-from",
        None,
        Arg,
        "<address>",
        "Mail from this address",
        "smtp"
    ),
    (
        "mail-rcpt",
        None,
        Arg,
        "<address>",
        "Mail to this address",
        "smtp"
    ),
    (
        "mail-rcpt-allowfails",
        None,
        Bool,
        "",
        "Allow RCPT TO command to fail",
        "smtp"
    ),
    (
        "manual",
        Some('M'),
        Bool,
        "",
        "Display the full manual",
        "curl"
    ),
    (
        "max-filesize",
        None,
        Arg,
        "<bytes>",
        "Maximum file size to download",
        "connection"
    ),
    (
        "max-redirs",
        None,
        Arg,
        "<num>",
        "Maximum number of redirects allowed",
        "http"
    ),
    (
        "max-time",
        Some('m'),
        Arg,
        "<seconds>",
        "Maximum time allowed for transfer",
        "connection timeout"
    ),
    (
        "metalink",
        None,
        Bool,
        "",
        "Process given URLs as metalink XML file",
        "deprecated"
    ),
    (
        "mptcp",
        None,
        Bool,
        "",
        "Enable Multipath TCP",
        "connection"
    ),
    (
        "negotiate",
        None,
        Bool,
        "",
        "Use HTTP Negotiate (SPNEGO) authentication",
        "auth http"
    ),
    (
        "netrc",
        Some('n'),
        Bool,
        "",
        "Must read .netrc for username and password",
        "auth"
    ),
    (
        "netrc-file",
        None,
        Arg,
        "<filename>",
        "Specify FILE for netrc",
        "auth"
    ),
    (
        "netrc-optional",
        None,
        Bool,
        "",
        "Use either .netrc or URL",
        "auth"
    ),
    (
        "next",
        Some(':'),
        Action,
        "",
        "Make next URL use separate options",
        "curl"
    ),
    (
        "no-alpn",
        None,
        Action,
        "",
        "Disable the ALPN TLS extension",
        "http tls"
    ),
    (
        "no-buffer",
        Some('N'),
        Action,
        "",
        "Disable buffering of the output stream",
        "output"
    ),
    (
        "no-keepalive",
        None,
        Action,
        "",
        "Disable TCP keepalive on the connection",
        "connection"
    ),
    (
        "no-progress-meter",
        None,
        Action,
        "",
        "Do not show the progress meter",
        "verbose"
    ),
    (
        "no-sessionid",
        None,
        Action,
        "",
        "Disable SSL session-ID reusing",
        "tls"
    ),
    (
        "noproxy",
        None,
        Arg,
        "<no-proxy-list>",
        "List of hosts which do not use proxy",
        "proxy"
    ),
    (
        "npn",
        None,
        NoBool,
        "",
        "Disable the NPN TLS extension",
        "deprecated"
    ),
    (
        "ntlm",
        None,
        Bool,
        "",
        "HTTP NTLM authentication",
        "auth http"
    ),
    (
        "ntlm-wb",
        None,
        Bool,
        "",
        "HTTP NTLM authentication with winbind",
        "deprecated"
    ),
    (
        "oauth2-bearer",
        None,
        Arg,
        "<token>",
        "OAuth 2 Bearer Token",
        "auth imap ldap pop3 smtp"
    ),
    (
        "output",
        Some('o'),
        Arg,
        "<file>",
        "Write to file instead of stdout",
        "important output"
    ),
    (
        "output-dir",
        None,
        Arg,
        "<dir>",
        "Directory to save files in",
        "output"
    ),
    (
        "parallel",
        Some('Z'),
        Bool,
        "",
        "Perform transfers in parallel",
        "connection curl global"
    ),
    (
        "parallel-immediate",
        None,
        Bool,
        "",
        "Do not wait for multiplexing",
        "connection curl global"
    ),
    (
        "parallel-max",
        None,
        Arg,
        "<num>",
        "Maximum concurrency for parallel transfers",
        "connection curl global"
    ),
    (
        "pass",
        None,
        Arg,
        "<phrase>",
        "Passphrase for the private key",
        "auth ssh tls"
    ),
    (
        "path-as-is",
        None,
        Bool,
        "",
        "Do not squash .. sequences in URL path",
        "curl"
    ),
    (
        "pinnedpubkey",
        None,
        Arg,
        "<hashes>",
        "Public key to verify peer against",
        "tls"
    ),
    (
        "post301",
        None,
        Bool,
        "",
        "Do not switch to GET after a 301 redirect",
        "http post"
    ),
    (
        "post302",
        None,
        Bool,
        "",
        "Do not switch to GET after a 302 redirect",
        "http post"
    ),
    (
        "post303",
        None,
        Bool,
        "",
        "Do not switch to GET after a 303 redirect",
        "http post"
    ),
    (
        "preproxy",
        None,
        Arg,
        "<[protocol://]host[:port]>",
        "Use this proxy first",
        "proxy"
    ),
    (
        "progress-bar",
        Some('#'),
        Bool,
        "",
        "Display transfer progress as a bar",
        "global verbose"
    ),
    (
        "progress-meter",
        None,
        Bool,
        "",
        "Show the progress meter",
        ""
    ),
    (
        "proto",
        None,
        Arg,
        "<protocols>",
        "Enable/disable PROTOCOLS",
        "connection curl"
    ),
    (
        "proto-default",
        None,
        Arg,
        "<protocol>",
        "Use PROTOCOL for any URL missing a scheme",
        "connection curl"
    ),
    (
        "proto-redir",
        None,
        Arg,
        "<protocols>",
        "Enable/disable PROTOCOLS on redirect",
        "connection curl"
    ),
    (
        "proxy",
        Some('x'),
        Arg,
        "<[protocol://]host[:port]>",
        "Use this proxy",
        "proxy"
    ),
    (
        "proxy-anyauth",
        None,
        Bool,
        "",
        "Pick any proxy authentication method",
        "auth proxy"
    ),
    (
        "proxy-basic",
        None,
        Bool,
        "",
        "Use Basic authentication on the proxy",
        "auth proxy"
    ),
    (
        "proxy-ca-native",
        None,
        Bool,
        "",
        "Load CA certs from the OS to verify proxy",
        "tls"
    ),
    (
        "proxy-cacert",
        None,
        Arg,
        "<file>",
        "CA certificates to verify proxy against",
        "proxy tls"
    ),
    (
        "proxy-capath",
        None,
        Arg,
        "<dir>",
        "CA directory to verify proxy against",
        "proxy tls"
    ),
    (
        "proxy-cert",
        None,
        Arg,
        "<cert[:passwd]>",
        "Set client certificate for proxy",
        "proxy tls"
    ),
    (
        "proxy-cert-type",
        None,
        Arg,
        "<type>",
        "Client certificate type for HTTPS proxy",
        "proxy tls"
    ),
    (
        "proxy-ciphers",
        None,
        Arg,
        "<list>",
        "TLS 1.2 (1.1, 1.0) ciphers to use for proxy",
        "proxy tls"
    ),
    (
        "proxy-crlfile",
        None,
        Arg,
        "<file>",
        "Set a CRL list for proxy",
        "proxy tls"
    ),
    (
        "proxy-digest",
        None,
        Bool,
        "",
        "Digest auth with the proxy",
        "proxy tls"
    ),
    (
        "proxy-header",
        None,
        Arg,
        "<header/@file>",
        "Pass custom header(s) to proxy",
        "proxy"
    ),
    (
        "proxy-http2",
        None,
        Bool,
        "",
        "Use HTTP/2 with HTTPS proxy",
        "http proxy"
    ),
    (
        "proxy-insecure",
        None,
        Bool,
        "",
        "Skip HTTPS proxy cert verification",
        "proxy tls"
    ),
    (
        "proxy-key",
        None,
        Arg,
        "<key>",
        "Private key for HTTPS proxy",
        "proxy tls"
    ),
    (
        "proxy-key-type",
        None,
        Arg,
        "<type>",
        "Private key file type for proxy",
        "proxy tls"
    ),
    (
        "proxy-negotiate",
        None,
        Bool,
        "",
        "HTTP Negotiate (SPNEGO) auth with the proxy",
        "auth proxy"
    ),
    (
        "proxy-ntlm",
        None,
        Bool,
        "",
        "NTLM authentication with the proxy",
        "auth proxy"
    ),
    (
        "proxy-pass",
        None,
        Arg,
        "<phrase>",
        "Passphrase for private key for HTTPS proxy",
        "auth proxy tls"
    ),
    (
        "proxy-pinnedpubkey",
        None,
        Arg,
        "<hashes>",
        "FILE/HASHES public key to verify proxy with",
        "proxy tls"
    ),
    (
        "proxy-service-name",
        None,
        Arg,
        "<name>",
        "SPNEGO proxy service name",
        "proxy tls"
    ),
    (
        "proxy-ssl-allow-beast",
        None,
        Bool,
        "",
        "Allow this security flaw for HTTPS proxy",
        "proxy tls"
    ),
    (
        "proxy-ssl-auto-client-cert",
        None,
        Bool,
        "",
        "Auto client certificate for proxy",
        "proxy tls"
    ),
    (
        "proxy-tls13-ciphers",
        None,
        Arg,
        "<list>",
        "TLS 1.3 proxy cipher suites",
        "proxy tls"
    ),
    (
        "proxy-tlsauthtype",
        None,
        Arg,
        "<type>",
        "TLS authentication type for HTTPS proxy",
        "auth proxy tls"
    ),
    (
        "proxy-tlspassword",
        None,
        Arg,
        "<string>",
        "TLS password for HTTPS proxy",
        "auth proxy tls"
    ),
    (
        "proxy-tlsuser",
        None,
        Arg,
        "<name>",
        "TLS username for HTTPS proxy",
        "auth proxy tls"
    ),
    (
        "proxy-tlsv1",
        None,
        Bool,
        "",
        "TLSv1 for HTTPS proxy",
        "auth proxy tls"
    ),
    (
        "proxy-user",
        Some('U'),
        Arg,
        "<user:password>",
        "Proxy user and password",
        "auth proxy"
    ),
    (
        "proxy1.0",
        None,
        Arg,
        "<host[:port]>",
        "Use HTTP/1.0 proxy on given port",
        "proxy"
    ),
    (
        "proxytunnel",
        Some('p'),
        Bool,
        "",
        "HTTP proxy tunnel (using CONNECT)",
        "proxy"
    ),
    (
        "pubkey",
        None,
        Arg,
        "<key>",
        "SSH Public key filename",
        "auth scp sftp ssh"
    ),
    (
        "quote",
        Some('Q'),
        Arg,
        "<command>",
        "Send command(s) to server before transfer",
        "ftp sftp"
    ),
    (
        "random-file",
        None,
        Arg,
        "<file>",
        "File for reading random data from",
        "deprecated"
    ),
    (
        "range",
        Some('r'),
        Arg,
        "<range>",
        "Retrieve only the bytes within RANGE",
        "file ftp http sftp"
    ),
    (
        "rate",
        None,
        Arg,
        "<max request rate>",
        "Request rate for serial transfers",
        "connection global"
    ),
    (
        "raw",
        None,
        Bool,
        "",
        "Do HTTP raw; no transfer decoding",
        "http"
    ),
    ("referer", Some('e'), Arg, "<URL>", "Referrer URL", "http"),
    (
        "remote-header-name",
        Some('J'),
        Bool,
        "",
        "Use the header-provided filename",
        "output"
    ),
    (
        "remote-name",
        Some('O'),
        Bool,
        "",
        "Write output to file named as remote file",
        "important output"
    ),
    (
        "remote-name-all",
        None,
        Bool,
        "",
        "Use the remote filename for all URLs",
        "output"
    ),
    (
        "remote-time",
        Some('R'),
        Bool,
        "",
        "Set remote file's time on local output",
        "output"
    ),
    (
        "remove-on-error",
        None,
        Bool,
        "",
        "Remove output file on errors",
        "output"
    ),
    (
        "request",
        Some('X'),
        Arg,
        "<method>",
        "Specify request method to use",
        "connection ftp imap pop3 smtp"
    ),
    (
        "request-target",
        None,
        Arg,
        "<path>",
        "Specify the target for this request",
        "http"
    ),
    (
        "resolve",
        None,
        Arg,
        "<[+]host:port:addr[,addr]...>",
        "Resolve host+port to address",
        "connection dns"
    ),
    (
        "retry",
        None,
        Arg,
        "<num>",
        "Retry request if transient problems occur",
        "curl"
    ),
    (
        "retry-all-errors",
        None,
        Bool,
        "",
        "Retry all errors (with --retry)",
        "curl"
    ),
    (
        "retry-connrefused",
        None,
        Bool,
        "",
        "Retry on connection refused (with --retry)",
        "curl"
    ),
    (
        "retry-delay",
        None,
        Arg,
        "<seconds>",
        "Wait time between retries",
        "curl timeout"
    ),
    (
        "retry-max-time",
        None,
        Arg,
        "<seconds>",
        "Retry only within this period",
        "curl timeout"
    ),
    (
        "sasl-authzid",
        None,
        Arg,
        "<identity>",
        "Identity for SASL PLAIN authentication",
        "auth"
    ),
    (
        "sasl-ir",
        None,
        Bool,
        "",
        "Initial response in SASL authentication",
        "auth"
    ),
    (
        "service-name",
        None,
        Arg,
        "<name>",
        "SPNEGO service name",
        "auth"
    ),
    (
        "sessionid",
        None,
        Bool,
        "",
        "Enable SSL session-ID reusing",
        ""
    ),
    (
        "show-error",
        Some('S'),
        Bool,
        "",
        "Show error even when -s is used",
        "curl global"
    ),
    (
        "show-headers",
        Some('i'),
        Bool,
        "",
        "Show response headers in output",
        "important output verbose"
    ),
    (
        "sigalgs",
        None,
        Arg,
        "<list>",
        "TLS signature algorithms to use",
        "tls"
    ),
    (
        "silent",
        Some('s'),
        Bool,
        "",
        "Silent mode",
        "important verbose"
    ),
    (
        "skip-existing",
        None,
        Bool,
        "",
        "Skip download if local file already exists",
        "curl output"
    ),
    (
        "socks4",
        None,
        Arg,
        "<host[:port]>",
        "SOCKS4 proxy on given host + port",
        "proxy"
    ),
    (
        "socks4a",
        None,
        Arg,
        "<host[:port]>",
        "SOCKS4a proxy on given host + port",
        "proxy"
    ),
    (
        "socks5",
        None,
        Arg,
        "<host[:port]>",
        "SOCKS5 proxy on given host + port",
        "proxy"
    ),
    (
        "socks5-basic",
        None,
        Bool,
        "",
        "Username/password auth for SOCKS5 proxies",
        "auth proxy"
    ),
    (
        "socks5-gssapi",
        None,
        Bool,
        "",
        "Enable GSS-API auth for SOCKS5 proxies",
        "auth proxy"
    ),
    (
        "socks5-gssapi-nec",
        None,
        Bool,
        "",
        "Compatibility with NEC SOCKS5 server",
        "auth proxy"
    ),
    (
        "socks5-gssapi-service",
        None,
        Arg,
        "<name>",
        "SOCKS5 proxy service name for GSS-API",
        "auth proxy"
    ),
    (
        "socks5-hostname",
        None,
        Arg,
        "<host[:port]>",
        "SOCKS5 proxy, pass hostname to proxy",
        "proxy"
    ),
    (
        "speed-limit",
        Some('Y'),
        Arg,
        "<speed>",
        "Stop transfers slower than this",
        "connection"
    ),
    (
        "speed-time",
        Some('y'),
        Arg,
        "<seconds>",
        "Trigger 'speed-limit' abort after this time",
        "connection timeout"
    ),
    (
        "ssl",
        None,
        Bool,
        "",
        "Try enabling TLS",
        "imap ldap pop3 smtp tls"
    ),
    (
        "ssl-allow-beast",
        None,
        Bool,
        "",
        "Allow security flaw to improve interop",
        "tls"
    ),
    (
        "ssl-auto-client-cert",
        None,
        Bool,
        "",
        "Use auto client certificate (Schannel)",
        "tls"
    ),
    (
        "ssl-no-revoke",
        None,
        Bool,
        "",
        "Disable cert revocation checks (Schannel)",
        "tls"
    ),
    (
        "ssl-reqd",
        None,
        Bool,
        "",
        "Require SSL/TLS",
        "imap ldap pop3 smtp tls"
    ),
    (
        "ssl-revoke-best-effort",
        None,
        Bool,
        "",
        "Ignore missing cert CRL dist points",
        "tls"
    ),
    (
        "ssl-sessions",
        None,
        Arg,
        "<filename>",
        "Load/save SSL session tickets from/to this file",
        "tls"
    ),
    ("sslv2", Some('2'), Bool, "", "SSLv2", "deprecated"),
    ("sslv3", Some('3'), Bool, "", "SSLv3", "deprecated"),
    (
        "stderr",
        None,
        Arg,
        "<file>",
        "Where to redirect stderr",
        "global verbose"
    ),
    (
        "styled-output",
        None,
        Bool,
        "",
        "Enable styled output for HTTP headers",
        "global verbose"
    ),
    (
        "suppress-connect-headers",
        None,
        Bool,
        "",
        "Suppress proxy CONNECT response headers",
        "proxy"
    ),
    (
        "tcp-fastopen",
        None,
        Bool,
        "",
        "Use TCP Fast Open",
        "connection"
    ),
    (
        "tcp-nodelay",
        None,
        Bool,
        "",
        "Set TCP_NODELAY",
        "connection"
    ),
    (
        "telnet-option",
        Some('t'),
        Arg,
        "<opt=val>",
        "Set telnet option",
        "telnet"
    ),
    (
        "tftp-blksize",
        None,
        Arg,
        "<value>",
        "Set TFTP BLKSIZE option",
        "tftp"
    ),
    (
        "tftp-no-options",
        None,
        Bool,
        "",
        "Do not send any TFTP options",
        "tftp"
    ),
    (
        "time-cond",
        Some('z'),
        Arg,
        "<time>",
        "Transfer based on a time condition",
        "ftp http"
    ),
    (
        "tls-earlydata",
        None,
        Bool,
        "",
        "Allow use of TLSv1.3 early data (0RTT)",
        "tls"
    ),
    (
        "tls-max",
        None,
        Arg,
        "<VERSION>",
        "Maximum allowed TLS version",
        "tls"
    ),
    (
        "tls13-ciphers",
        None,
        Arg,
        "<list>",
        "TLS 1.3 cipher suites to use",
        "tls"
    ),
    (
        "tlsauthtype",
        None,
        Arg,
        "<type>",
        "TLS authentication type",
        "auth tls"
    ),
    (
        "tlspassword",
        None,
        Arg,
        "<string>",
        "TLS password",
        "auth tls"
    ),
    ("tlsuser", None, Arg, "<name>", "TLS username", "auth tls"),
    ("tlsv1", Some('1'), Bool, "", "TLSv1.0 or greater", "tls"),
    ("tlsv1.0", None, Bool, "", "TLSv1.0 or greater", "tls"),
    ("tlsv1.1", None, Bool, "", "TLSv1.1 or greater", "tls"),
    ("tlsv1.2", None, Bool, "", "TLSv1.2 or greater", "tls"),
    ("tlsv1.3", None, Bool, "", "TLSv1.3 or greater", "tls"),
    (
        "tr-encoding",
        None,
        Bool,
        "",
        "Request compressed transfer encoding",
        "http"
    ),
    (
        "trace",
        None,
        Arg,
        "<file>",
        "Write a debug trace to FILE",
        "global verbose"
    ),
    (
        "trace-ascii",
        None,
        Arg,
        "<file>",
        "Like --trace, but without hex output",
        "global verbose"
    ),
    (
        "trace-config",
        None,
        Arg,
        "<string>",
        "Details to log in trace/verbose output",
        "global verbose"
    ),
    (
        "trace-ids",
        None,
        Bool,
        "",
        "Transfer + connection ids in verbose output",
        "global verbose"
    ),
    (
        "trace-time",
        None,
        Bool,
        "",
        "Add time stamps to trace/verbose output",
        "global verbose"
    ),
    (
        "unix-socket",
        None,
        Arg,
        "<path>",
        "Connect through this Unix domain socket",
        "connection"
    ),
    (
        "upload-file",
        Some('T'),
        Arg,
        "<file>",
        "Transfer local FILE to destination",
        "important upload"
    ),
    (
        "upload-flags",
        None,
        Arg,
        "<flags>",
        "IMAP upload behavior",
        "curl output"
    ),
    (
        "url",
        None,
        Arg,
        "<url/file>",
        "URL(s) to work with",
        "curl"
    ),
    (
        "url-query",
        None,
        Arg,
        "<data>",
        "Add a URL query part",
        "http post upload"
    ),
    (
        "use-ascii",
        Some('B'),
        Bool,
        "",
        "Use ASCII/text transfer",
        "ftp ldap output"
    ),
    (
        "user",
        Some('u'),
        Arg,
        "<user:password>",
        "Server user and password",
        "important auth"
    ),
    (
        "user-agent",
        Some('A'),
        Arg,
        "<name>",
        "Send User-Agent <name> to server",
        "important http"
    ),
    (
        "variable",
        None,
        Arg,
        "<[%]name=text/@file>",
        "Set variable",
        "curl"
    ),
    (
        "verbose",
        Some('v'),
        Bool,
        "",
        "Make the operation more talkative",
        "important global verbose"
    ),
    (
        "version",
        Some('V'),
        Action,
        "",
        "Show version number and quit",
        "important curl"
    ),
    (
        "vlan-priority",
        None,
        Arg,
        "<priority>",
        "Set VLAN priority",
        "connection"
    ),
    (
        "write-out",
        Some('w'),
        Arg,
        "<format>",
        "Output FORMAT after completion",
        "verbose"
    ),
    (
        "xattr",
        None,
        Bool,
        "",
        "Store metadata in extended file attributes",
        "output"
    ),
];

/// Find an option by long name; curl accepts unambiguous prefixes of long names? No: curl
/// 8 requires exact names, except the `--no-` prefix of booleans.
pub fn find_long(name: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.long == name)
}

pub fn find_short(c: char) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.short == Some(c))
}

/// How a data option treats its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// `-d` / `--data-ascii`: `@file` read with CR, LF and zero bytes stripped.
    Ascii,
    Binary,
    Raw,
    UrlEncode,
    Json,
}

/// Settings for one group of URLs (split by `--next`).
#[derive(Clone, Debug, Default)]
pub struct Operation {
    pub tls: TlsOptions,
    /// The HTTPS proxy's TLS settings (`--proxy-cacert`, `--proxy-insecure`...).
    pub proxy_tls: TlsOptions,
    pub hsts: Option<String>,
    /// `--alt-svc`: the alt-svc cache file.
    pub alt_svc: Option<String>,
    pub urls: Vec<UrlSpec>,
    /// `-d`-style arguments as given, each with the contents of the file it names (read
    /// once, while parsing, as curl does; None for text and for stdin, read later).
    pub data: Vec<(DataKind, String, Option<Vec<u8>>)>,
    pub json: bool,
    pub headers: Vec<String>,
    pub useragent: Option<String>,
    pub referer: Option<String>,
    pub autoreferer: bool,
    pub user: Option<String>,
    pub method: Option<String>,
    pub request_target: Option<String>,
    pub get: bool,
    pub head: bool,
    /// `-g`: URLs and `-T` names are taken as they are, without `{}` and `[]` globs.
    pub globoff: bool,
    pub range: Option<String>,
    pub continue_at: Option<ContinueAt>,
    pub location: bool,
    pub location_trusted: bool,
    pub max_redirs: Option<i64>,
    pub post301: bool,
    pub post302: bool,
    pub post303: bool,
    pub compressed: bool,
    pub raw: bool,
    /// `--http1.0`, `--http1.1`, `--http2`, `--http2-prior-knowledge`: the last one wins.
    pub http_version: Option<oxcurl_core::options::HttpVersionPref>,
    pub http09: bool,
    pub include: bool,
    pub dump_header: Option<String>,
    pub fail: bool,
    pub fail_with_body: bool,
    pub max_time: Option<f64>,
    pub connect_timeout: Option<f64>,
    pub expect100_timeout: Option<f64>,
    pub max_filesize: Option<u64>,
    /// `--limit-rate`: bytes per second, both directions; 0 for no limit.
    pub limit_rate: u64,
    /// `-Y`: abort below this many bytes per second...
    pub low_speed_limit: u64,
    /// `-y`: ...for this many seconds.
    pub low_speed_time: u64,
    pub write_out: Option<String>,
    pub output_dir: Option<String>,
    pub create_dirs: bool,
    pub remote_name_all: bool,
    pub resolve: Vec<String>,
    pub connect_to: Vec<String>,
    pub ipv4: bool,
    pub ipv6: bool,
    pub unix_socket: Option<(String, bool)>,
    pub local_port: Option<(u16, u16)>,
    pub interface: Option<String>,
    pub tcp_nodelay: bool,
    pub keepalive: bool,
    pub keepalive_time: Option<u32>,
    /// `--keepalive-cnt`: probes before the connection is dropped.
    pub keepalive_cnt: Option<u32>,
    /// `--happy-eyeballs-timeout-ms`.
    pub happy_eyeballs_ms: Option<u64>,
    /// `--ip-tos`: the IP Type of Service (IPv6 traffic class) of every socket.
    pub ip_tos: Option<u32>,
    /// `--skip-existing`: no transfer when the output file already exists.
    pub skip_existing: bool,
    pub ignore_content_length: bool,
    pub disallow_username_in_url: bool,
    pub path_as_is: bool,
    pub proto_default: Option<String>,
    /// `--proto` / `--proto-redir`: the protocol sets they leave (None: not given).
    pub proto: Option<Vec<String>>,
    pub proto_redir: Option<Vec<String>>,
    /// `--no-clobber`; `--clobber` also overwrites names from Content-Disposition.
    pub no_clobber: bool,
    pub clobber_always: bool,
    /// `-J`.
    pub content_disposition: bool,
    pub etag_save: Option<String>,
    /// `--xattr`.
    pub xattr: bool,
    /// `--create-file-mode`: for files created on the server (SFTP, SCP, FILE); HTTP
    /// downloads keep the default mode, as in curl.
    pub create_file_mode: Option<u32>,
    pub etag_compare: Option<String>,
    pub remote_time: bool,
    pub remove_on_error: bool,
    /// `--retry`, `--retry-delay`, `--retry-max-time`, `--retry-all-errors`,
    /// `--retry-connrefused`.
    pub retry: crate::retry::RetryConfig,
    /// `-z`: the condition and the time it compares with.
    pub time_cond: Option<(oxcurl_core::options::TimeCondition, i64)>,
    pub cookie: Vec<String>,
    pub cookie_jar: Option<String>,
    pub bearer: Option<String>,
    /// `CURLAUTH_*` bits from --basic, --digest, --anyauth, --oauth2-bearer; 0 = default.
    pub authtype: u32,
    pub aws_sigv4: Option<String>,
    /// `--url-query` parts, in order.
    pub url_query: Vec<String>,
    pub netrc: bool,
    pub netrc_optional: bool,
    /// FTP: `--disable-epsv` (PASV only), `--no-ftp-skip-pasv-ip` (the PASV reply's address
    /// is used), `-B` (ASCII).
    pub disable_epsv: bool,
    pub ftp_use_pasv_ip: bool,
    pub use_ascii: bool,
    /// FTP: `-Q` (`-CMD` after the transfer, `+CMD` just before it), `--ftp-method`,
    /// `--ftp-create-dirs`, `-l`, `-a`, `--ftp-account`, `--ftp-alternative-to-user`.
    pub ftp: oxcurl_core::options::FtpOptions,
    /// `--ssl`, `--ssl-reqd`, `--ftp-ssl-control` (curl's `ftp_ssl*`): `CURLOPT_USE_SSL`.
    pub ftp_ssl: bool,
    pub ftp_ssl_reqd: bool,
    pub ftp_ssl_control: bool,
    /// `--ftp-ssl-ccc` and its `--ftp-ssl-ccc-mode`.
    pub ftp_ssl_ccc: bool,
    pub ftp_ssl_ccc_mode: Option<FtpCcc>,
    pub netrc_file: Option<String>,
    pub junk_session_cookies: bool,
    /// `-F`/`--form-string` parts, parsed as given, nested by `(` and `)`.
    pub form: crate::formparse::Form,
    pub form_escape: bool,
    /// `-x`, `--proxy1.0`, `--socks*`: the proxy and its default type; `Some("")` disables
    /// proxies.
    pub proxy: Option<(String, oxcurl_core::proxy::ProxyKind)>,
    /// `--socks5-basic`: only username/password for SOCKS5 (no GSS-API offered).
    pub socks5_basic: bool,
    pub proxy_user: Option<String>,
    /// `--proxy-basic`, `--proxy-digest`, `--proxy-ntlm`, `--proxy-anyauth`.
    pub proxy_auth: ProxyAuthFlags,
    pub preproxy: Option<String>,
    pub noproxy: Option<String>,
    pub proxy_headers: Vec<String>,
    pub proxytunnel: bool,
    /// `--haproxy-protocol` and `--haproxy-clientip`.
    pub haproxy_protocol: bool,
    pub haproxy_clientip: Option<String>,
    /// `--tr-encoding`.
    pub tr_encoding: bool,
    /// `--crlf`.
    pub crlf: bool,
    /// `--proxy-http2`: offer HTTP/2 to an HTTPS proxy (`CURLPROXY_HTTPS2`).
    pub proxy_http2: bool,
    pub suppress_connect_headers: bool,
    /// More `-o`/`-O`/`-T` than URLs: "Got more output options than URLs".
    pub unused_outputs: bool,
}

/// A URL with its own output and upload settings (`-o`/`-O` and `-T` each pair with URLs
/// in order, independently of each other, as curl's URL nodes do).
#[derive(Clone, Debug, Default)]
pub struct UrlSpec {
    pub url: String,
    pub output: Option<String>,
    pub remote_name: bool,
    /// `--no-remote-name` after `--remote-name-all`: not named after the URL.
    pub no_remote: bool,
    /// Read with `--url @file`: used as it is, without globbing.
    pub noglob: bool,
    /// `-T FILE` (a glob unless `-g`); `Some("")` for `-T ""`, which uploads nothing.
    pub upload: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContinueAt {
    Auto,
    At(u64),
}

/// Settings that apply to the whole invocation.
#[derive(Clone, Debug, Default)]
pub struct Global {
    pub silent: bool,
    pub show_error: bool,
    pub verbose: u32,
    pub trace: Option<(String, bool)>,
    pub trace_time: bool,
    /// `--trace-ids`: each trace line starts with the transfer's and connection's ids.
    pub trace_ids: bool,
    pub stderr: Option<String>,
    pub no_progress: bool,
    pub progress_bar: bool,
    pub parallel: bool,
    /// `--parallel-immediate`: open connections at once rather than wait to multiplex.
    pub parallel_immediate: bool,
    pub parallel_max: usize,
    pub no_buffer: bool,
    pub fail_early: bool,
    /// `--rate`: at least this many milliseconds between the starts of serial transfers.
    pub rate_ms: u64,
}

/// Everything parsed from the command line.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub global: Global,
    pub ops: Vec<Operation>,
    /// `-V` or `-h` seen: print and exit.
    pub action: Option<Action>,
    /// `-h [topic]` in config files: curl prints that help while reading the file, and
    /// goes on.
    pub config_help: Vec<Option<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Version,
    Help(Option<String>),
    /// `-M`: print the built-in manual (made from the option table).
    Manual,
    /// `--dump-ca-embed`: print the CA bundle built into the binary; there is none.
    DumpCaEmbed,
}

/// A command-line error: curl prints `curl: MESSAGE` and the help hint, exit 2.
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub msg: String,
    pub code: i32,
}

/// curl's `PARAM_BLANK_STRING` error for the option as typed.
fn blank_argument(typed: &str) -> ParseError {
    perr(format!(
        "option {typed}: blank argument where content is expected"
    ))
}

fn perr(msg: impl Into<String>) -> ParseError {
    ParseError {
        msg: msg.into(),
        code: 2,
    }
}

/// `--ip-tos` names (curl's `tos_entries`, matched case-sensitively), sorted.
const IP_TOS_NAMES: &[(&str, u32)] = &[
    ("AF11", 0x28),
    ("AF12", 0x30),
    ("AF13", 0x38),
    ("AF21", 0x48),
    ("AF22", 0x50),
    ("AF23", 0x58),
    ("AF31", 0x68),
    ("AF32", 0x70),
    ("AF33", 0x78),
    ("AF41", 0x88),
    ("AF42", 0x90),
    ("AF43", 0x98),
    ("CE", 0x03),
    ("CS0", 0x00),
    ("CS1", 0x20),
    ("CS2", 0x40),
    ("CS3", 0x60),
    ("CS4", 0x80),
    ("CS5", 0xa0),
    ("CS6", 0xc0),
    ("CS7", 0xe0),
    ("ECT0", 0x02),
    ("ECT1", 0x01),
    ("EF", 0xb8),
    ("LE", 0x04),
    ("LOWCOST", 0x02),
    ("LOWDELAY", 0x10),
    ("MINCOST", 0x02),
    ("RELIABILITY", 0x04),
    ("THROUGHPUT", 0x08),
];

/// Options whose argument may not be empty: curl answers
/// `option -o: blank argument where content is expected` (its `DENY_BLANK`).
const DENY_BLANK: &[&str] = &[
    "abstract-unix-socket",
    "cacert",
    "capath",
    "cert-type",
    "ciphers",
    "cookie-jar",
    "crlfile",
    "curves",
    "dump-header",
    "engine",
    "etag-compare",
    "etag-save",
    "ftp-account",
    "ftp-alternative-to-user",
    "ftp-port",
    "haproxy-clientip",
    "hostpubmd5",
    "hostpubsha256",
    "interface",
    "ipfs-gateway",
    "key",
    "key-type",
    "krb",
    "libcurl",
    "mail-auth",
    "mail-from",
    "netrc-file",
    "oauth2-bearer",
    "output",
    "output-dir",
    "pass",
    "pinnedpubkey",
    "preproxy",
    "proto-default",
    "proxy-cacert",
    "proxy-capath",
    "proxy-cert-type",
    "proxy-ciphers",
    "proxy-crlfile",
    "proxy-key-type",
    "proxy-pinnedpubkey",
    "proxy-service-name",
    "proxy-tls13-ciphers",
    "proxy-tlsauthtype",
    "proxy-tlspassword",
    "proxy1.0",
    "pubkey",
    "range",
    "request",
    "request-target",
    "sasl-authzid",
    "service-name",
    "sigalgs",
    "socks4",
    "socks4a",
    "socks5",
    "socks5-hostname",
    "tls13-ciphers",
    "tlsauthtype",
    "tlsuser",
    "trace",
    "trace-ascii",
    "unix-socket",
    "url",
];

struct Parser {
    cfg: Config,
    /// `--variable` values, for `--expand-*` arguments.
    vars: crate::var::Vars,
    /// The option as typed (`-F`, `--form`), for messages that name it so.
    typed: String,
    /// Options taken so far from the argument being read (curl's `verbose_nopts`).
    nopts: u32,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            cfg: Config {
                global: Global {
                    parallel_max: 50,
                    ..Global::default()
                },
                ops: vec![Operation {
                    tcp_nodelay: true,
                    ..Operation::default()
                }],
                action: None,
                config_help: Vec::new(),
            },
            typed: String::new(),
            nopts: 0,
            vars: crate::var::Vars::default(),
        }
    }

    fn op(&mut self) -> &mut Operation {
        self.cfg.ops.last_mut().expect("one operation")
    }

    /// A warning as curl's `warnf` prints it; nothing with `-s`.
    fn warn(&self, msg: &str) {
        if !self.cfg.global.silent {
            msg_out(&warning_text(msg));
        }
    }

    /// curl's `GetSizeParameter`: a whole number with an optional one-letter unit (K, M or
    /// G, 1024 based, or B), any case; `which` names the value in the warnings.
    fn size_param(&self, name: &str, v: &str, which: &str) -> Result<u64, ParseError> {
        let digits = v.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(n) = v[..digits].parse::<i64>() else {
            self.warn(&format!("invalid number specified for {which}"));
            return Err(perr(format!("option --{name}: is badly used here")));
        };
        let unit = &v[digits..];
        let shift = match unit.as_bytes() {
            [] | [b'b' | b'B'] => 0,
            [b'k' | b'K'] => 10,
            [b'm' | b'M'] => 20,
            [b'g' | b'G'] => 30,
            _ => {
                self.warn(&format!("unsupported {which} unit. Use G, M, K or B"));
                return Err(perr(format!("option --{name}: is badly used here")));
            }
        };
        if n > i64::MAX >> shift {
            return Err(perr(format!("option --{name}: too large number")));
        }
        Ok((n << shift) as u64)
    }

    fn warn_all(&self, msgs: &[String]) {
        for m in msgs {
            self.warn(m);
        }
    }

    /// Expand `{{variables}}` in an `--expand-*` argument, printing curl's warnings.
    fn expand(&mut self, v: &str) -> Result<String, ParseError> {
        let mut warnings = Vec::new();
        let r = self.vars.expand(v, &mut warnings);
        self.warn_all(&warnings);
        r.map_err(|e| {
            match e {
                crate::var::VarError::UnknownFunction(f) => {
                    self.error(&format!("unknown variable function in '{f}'"))
                }
                crate::var::VarError::NullByte => self.error("variable contains null byte"),
                _ => {}
            }
            perr(format!("option {}: variable expansion failure", self.typed))
        })
    }

    /// `--basic`, `--digest`: add or remove one authentication scheme.
    fn auth_bit(&mut self, bit: u32, on: bool) {
        if on {
            self.op().authtype |= bit;
        } else {
            self.op().authtype &= !bit;
        }
    }

    /// curl's `errorf` then "is badly used here" for the option.
    fn bad_use(&self, name: &str, msg: &str) -> Result<(), ParseError> {
        self.error(msg);
        Err(perr(format!("option --{name}: is badly used here")))
    }

    /// The etag options take one URL per operation, whichever comes first.
    fn etag_single_url(&mut self, name: &str) -> Result<(), ParseError> {
        if self.op().urls.iter().filter(|u| !u.url.is_empty()).count() > 1 {
            return self.bad_use(name, "The etag options only work on a single URL");
        }
        Ok(())
    }

    /// A URL for the next entry without one; a second URL with an etag option is refused.
    /// Returns the entry's index.
    fn add_url(&mut self, u: String) -> Result<usize, ParseError> {
        let op_has_unassigned = self.op().urls.iter().position(|s| s.url.is_empty());
        let i = if let Some(i) = op_has_unassigned {
            self.op().urls[i].url = u;
            i
        } else {
            self.op().urls.push(UrlSpec {
                url: u,
                ..UrlSpec::default()
            });
            self.op().urls.len() - 1
        };
        if self.op().etag_save.is_some() || self.op().etag_compare.is_some() {
            self.etag_single_url("url")?;
        }
        Ok(i)
    }

    /// `-o`, `-O`, and `--no-remote-name` after `--remote-name-all` (`no_remote`: this URL
    /// goes to stdout after all).
    fn add_output(&mut self, output: Option<String>, remote: bool, no_remote: bool) {
        // Attach to the first URL that has no output yet, else wait for a URL.
        let op = self.op();
        if let Some(s) = op
            .urls
            .iter_mut()
            .find(|s| s.output.is_none() && !s.remote_name && !s.no_remote)
        {
            s.output = output;
            s.remote_name = remote;
            s.no_remote = no_remote;
        } else {
            op.urls.push(UrlSpec {
                url: String::new(),
                output,
                remote_name: remote,
                no_remote,
                ..UrlSpec::default()
            });
        }
    }

    fn add_upload(&mut self, file: String) {
        // Like outputs: the first URL without an upload file, else one still to come.
        let op = self.op();
        if let Some(s) = op.urls.iter_mut().find(|s| s.upload.is_none()) {
            s.upload = Some(file);
        } else {
            op.urls.push(UrlSpec {
                upload: Some(file),
                ..UrlSpec::default()
            });
        }
    }

    /// `apply`, with errors naming the option as it was typed (`-m`, not `--max-time`),
    /// as curl's messages do.
    fn apply_typed(
        &mut self,
        o: &'static Opt,
        negated: bool,
        arg: Option<String>,
    ) -> Result<(), ParseError> {
        if arg.as_deref() == Some("") && DENY_BLANK.binary_search(&o.long).is_ok() {
            return Err(blank_argument(&self.typed));
        }
        // A -K reads other options: the error names this one.
        let typed = self.typed.clone();
        self.apply(o, negated, arg).map_err(|mut e| {
            let long = format!("option --{}:", o.long);
            if let Some(rest) = e.msg.strip_prefix(&long) {
                e.msg = format!("option {typed}:{rest}");
            }
            e
        })
    }

    fn apply(
        &mut self,
        o: &'static Opt,
        negated: bool,
        arg: Option<String>,
    ) -> Result<(), ParseError> {
        let on = !negated;
        let a = || arg.clone().unwrap_or_default();
        let name = o.long;
        match name {
            "silent" => self.cfg.global.silent = on,
            "show-error" => self.cfg.global.show_error = on,
            // curl keeps one trace type: -v (plain, to stderr), --trace or --trace-ascii; the
            // last one given wins, with a warning.
            "verbose" if on => {
                // curl's parse_verbose: the first `v` of an argument starts again from
                // plain `-v` (ids and times off); each further one in the same argument
                // (`-vv`) adds ids and times, then an ASCII trace to stderr.
                let g = &mut self.cfg.global;
                if self.nopts == 0 {
                    g.verbose = 0;
                    g.trace_ids = false;
                    g.trace_time = false;
                }
                match g.verbose {
                    0 => {
                        if g.trace.take().is_some() {
                            self.warn("-v, --verbose overrides an earlier trace option");
                        }
                        self.cfg.global.verbose = 1;
                    }
                    1 => {
                        g.verbose = 2;
                        g.trace_ids = true;
                        g.trace_time = true;
                    }
                    2 => {
                        g.verbose = 3;
                        g.trace = Some(("%".to_string(), true));
                    }
                    3 => g.verbose = 4,
                    _ => {}
                }
            }
            "verbose" => {
                self.cfg.global.verbose = 0;
                self.cfg.global.trace = None;
                self.cfg.global.trace_ids = false;
                self.cfg.global.trace_time = false;
            }
            "trace" | "trace-ascii" => {
                let ascii = name == "trace-ascii";
                let g = &self.cfg.global;
                let earlier = match &g.trace {
                    Some((_, was_ascii)) => *was_ascii != ascii,
                    None => g.verbose > 0,
                };
                if earlier {
                    self.warn(&format!(
                        "--{name} overrides an earlier trace/verbose option"
                    ));
                }
                self.cfg.global.trace = Some((a(), ascii));
            }
            "trace-time" => self.cfg.global.trace_time = on,
            "trace-ids" => self.cfg.global.trace_ids = on,
            // Of curl's trace configuration the tool's own ids and times apply; libcurl's
            // internal trace categories are accepted and not written.
            "trace-config" => {
                for token in a().split(',') {
                    let (on, name) = match token.as_bytes().first() {
                        Some(b'-') => (false, &token[1..]),
                        Some(b'+') => (true, &token[1..]),
                        _ => (true, token),
                    };
                    let g = &mut self.cfg.global;
                    if name.eq_ignore_ascii_case("all") {
                        g.trace_ids = on;
                        g.trace_time = on;
                    } else if name.eq_ignore_ascii_case("ids") {
                        g.trace_ids = on;
                    } else if name.eq_ignore_ascii_case("time") {
                        g.trace_time = on;
                    }
                }
            }
            "stderr" => {
                set_msg_file(&a());
                self.cfg.global.stderr = Some(a());
            }
            "no-progress-meter" => self.cfg.global.no_progress = true,
            "progress-meter" => self.cfg.global.no_progress = !on,
            "progress-bar" => self.cfg.global.progress_bar = on,
            "parallel" => self.cfg.global.parallel = on,
            "parallel-immediate" => self.cfg.global.parallel_immediate = on,
            "parallel-max" => {
                let n = parse_num(name, &a())?;
                self.cfg.global.parallel_max = n.clamp(1, 65535) as usize;
            }
            "no-buffer" => self.cfg.global.no_buffer = true,
            "buffer" => self.cfg.global.no_buffer = !on,
            "version" => self.cfg.action = Some(Action::Version),
            "help" => self.cfg.action = Some(Action::Help(arg)),
            "disable" => {}
            // Handled by the callers of getparameter.
            "next" => {}
            "url" => {
                let v = a();
                match v.strip_prefix('@') {
                    // URLs read from a file (or stdin), one a line, each saved under its
                    // remote name and not globbed.
                    Some(f) => {
                        let data = read_arg_file(f).map_err(|_| read_error(name))?;
                        let lines =
                            file_lines(&data, URL_FILE_LINE_MAX).map_err(|_| read_error(name))?;
                        for line in lines {
                            let i = self.add_url(line)?;
                            let u = &mut self.op().urls[i];
                            u.remote_name = true;
                            u.noglob = true;
                        }
                    }
                    None => {
                        self.add_url(v)?;
                    }
                }
            }
            "output" => self.add_output(Some(a()), false, false),
            // --no-remote-name does something only after --remote-name-all.
            "remote-name" => {
                if on || self.op().remote_name_all {
                    self.add_output(None, on, !on);
                }
            }
            "remote-name-all" => self.op().remote_name_all = on,
            "output-dir" => self.op().output_dir = Some(a()),
            "create-dirs" => self.op().create_dirs = on,
            "data" | "data-ascii" | "data-binary" | "data-urlencode" | "json" => {
                let kind = match name {
                    "data-binary" => DataKind::Binary,
                    "data-urlencode" => DataKind::UrlEncode,
                    "json" => DataKind::Json,
                    _ => DataKind::Ascii,
                };
                let v = a();
                let file = load_data_file(name, &v, kind == DataKind::UrlEncode)?;
                self.op().data.push((kind, v, file));
                if kind == DataKind::Json {
                    self.op().json = true;
                }
            }
            "data-raw" => self.op().data.push((DataKind::Raw, a(), None)),
            "header" => {
                let v = a();
                if let Some(f) = v.strip_prefix('@') {
                    let text = read_arg_file(f).map_err(|_| read_error(name))?;
                    let lines =
                        file_lines(&text, HEADER_FILE_LINE_MAX).map_err(|_| read_error(name))?;
                    self.op().headers.extend(lines);
                } else {
                    self.op().headers.push(v);
                }
            }
            "user-agent" => self.op().useragent = Some(a()),
            "referer" => {
                let v = a();
                if let Some(r) = v.strip_suffix(";auto") {
                    self.op().autoreferer = true;
                    self.op().referer = if r.is_empty() {
                        None
                    } else {
                        Some(r.to_string())
                    };
                } else {
                    self.op().autoreferer = false;
                    self.op().referer = Some(v);
                }
            }
            "user" => self.op().user = Some(a()),
            "proxy" => self.op().proxy = Some((a(), ProxyKind::Http)),
            "proxy1.0" => self.op().proxy = Some((a(), ProxyKind::Http10)),
            "socks4" => self.op().proxy = Some((a(), ProxyKind::Socks4)),
            "socks4a" => self.op().proxy = Some((a(), ProxyKind::Socks4a)),
            "socks5" => self.op().proxy = Some((a(), ProxyKind::Socks5)),
            "socks5-hostname" => self.op().proxy = Some((a(), ProxyKind::Socks5h)),
            "socks5-basic" => self.op().socks5_basic = on,
            "proxy-user" => self.op().proxy_user = Some(a()),
            "preproxy" => self.op().preproxy = Some(a()),
            "noproxy" => self.op().noproxy = Some(a()),
            "proxytunnel" => self.op().proxytunnel = on,
            "haproxy-protocol" => self.op().haproxy_protocol = on,
            "tr-encoding" => self.op().tr_encoding = on,
            "crlf" => self.op().crlf = on,
            "haproxy-clientip" => self.op().haproxy_clientip = Some(a()),
            "proxy-http2" => self.op().proxy_http2 = on,
            "suppress-connect-headers" => self.op().suppress_connect_headers = on,
            "proxy-basic" => self.op().proxy_auth.basic = on,
            "proxy-digest" => self.op().proxy_auth.digest = on,
            "proxy-ntlm" => self.op().proxy_auth.ntlm = on,
            "proxy-anyauth" => self.op().proxy_auth.any = on,
            "proxy-header" => {
                let v = a();
                if let Some(f) = v.strip_prefix('@') {
                    let text = read_arg_file(f).map_err(|_| read_error(name))?;
                    let lines =
                        file_lines(&text, HEADER_FILE_LINE_MAX).map_err(|_| read_error(name))?;
                    self.op().proxy_headers.extend(lines);
                } else {
                    self.op().proxy_headers.push(v);
                }
            }
            "request" => self.op().method = Some(a()),
            "request-target" => self.op().request_target = Some(a()),
            "get" => self.op().get = on,
            "head" => self.op().head = on,
            "upload-file" => self.add_upload(a()),
            "globoff" => self.op().globoff = on,
            "range" => {
                if self.op().continue_at.is_some() {
                    return self.bad_use(name, "--continue-at is mutually exclusive with --range");
                }
                let v = a();
                let digits = v.bytes().take_while(u8::is_ascii_digit).count();
                let number = v[..digits].parse::<i64>().ok().filter(|_| digits > 0);
                let range = match number {
                    // A number without a dash after it: curl completes `N` as `N-`.
                    Some(n) if !v[digits..].starts_with('-') => {
                        self.warn(
                            "A specified range MUST include at least one dash (-). Appending \
                             one for you",
                        );
                        format!("{n}-")
                    }
                    _ => {
                        if v.bytes()
                            .any(|b| !b.is_ascii_digit() && b != b'-' && b != b',')
                        {
                            self.warn(
                                "Invalid character is found in given range. A specified range \
                                 MUST have only digits in 'start'-'stop'. The server's response \
                                 to this request is uncertain.",
                            );
                        }
                        v
                    }
                };
                self.op().range = Some(range);
            }
            "continue-at" => {
                for (set, other) in [
                    (self.op().range.is_some(), "--range"),
                    (self.op().remove_on_error, "--remove-on-error"),
                    (self.op().no_clobber, "--no-clobber"),
                ] {
                    if set {
                        let msg = format!("--continue-at is mutually exclusive with {other}");
                        return self.bad_use(name, &msg);
                    }
                }
                let v = a();
                self.op().continue_at = Some(if v == "-" {
                    ContinueAt::Auto
                } else {
                    ContinueAt::At(str2offset(name, &v)?)
                });
            }
            "location" => self.op().location = on,
            "location-trusted" => {
                self.op().location = on;
                self.op().location_trusted = on;
            }
            "max-redirs" => self.op().max_redirs = Some(parse_num(name, &a())?),
            "post301" => self.op().post301 = on,
            "post302" => self.op().post302 = on,
            "post303" => self.op().post303 = on,
            "compressed" => self.op().compressed = on,
            "raw" => self.op().raw = on,
            "http1.0" => self.op().http_version = Some(HttpVersionPref::V1_0),
            "http1.1" => self.op().http_version = Some(HttpVersionPref::V1_1),
            "http2" => self.op().http_version = Some(HttpVersionPref::V2),
            "http2-prior-knowledge" => {
                self.op().http_version = Some(HttpVersionPref::V2PriorKnowledge)
            }
            "http0.9" => self.op().http09 = on,
            "include" | "show-headers" => self.op().include = on,
            "dump-header" => self.op().dump_header = Some(a()),
            "fail" | "fail-with-body" => {
                if name == "fail" {
                    self.op().fail = on;
                } else {
                    self.op().fail_with_body = on;
                }
                if self.op().fail && self.op().fail_with_body {
                    return self.bad_use(
                        name,
                        "You must select either --fail or --fail-with-body, not both.",
                    );
                }
            }
            "max-time" => self.op().max_time = Some(secs2ms(name, &a())? as f64 / 1000.0),
            "connect-timeout" => {
                self.op().connect_timeout = Some(secs2ms(name, &a())? as f64 / 1000.0)
            }
            "expect100-timeout" => {
                self.op().expect100_timeout = Some(secs2ms(name, &a())? as f64 / 1000.0)
            }
            "max-filesize" => self.op().max_filesize = Some(parse_size(name, &a())?),
            // Each sets a default for the other, as curl does while parsing.
            "speed-limit" => {
                self.op().low_speed_limit = parse_unum(name, &a())?;
                if self.op().low_speed_time == 0 {
                    self.op().low_speed_time = 30;
                }
            }
            "speed-time" => {
                self.op().low_speed_time = parse_unum(name, &a())?;
                if self.op().low_speed_limit == 0 {
                    self.op().low_speed_limit = 1;
                }
            }
            "limit-rate" => {
                let v = a();
                self.op().limit_rate = self.size_param(name, &v, "rate")?;
            }
            "write-out" => {
                let v = a();
                let fmt = if let Some(f) = v.strip_prefix('@') {
                    let b = read_arg_file(f).map_err(|_| read_error(name))?;
                    String::from_utf8_lossy(&file_to_string(&b)).into_owned()
                } else {
                    v
                };
                self.op().write_out = Some(fmt);
            }
            "resolve" => self.op().resolve.push(a()),
            "connect-to" => self.op().connect_to.push(a()),
            "ipv4" => {
                self.op().ipv4 = true;
                self.op().ipv6 = false;
            }
            "ipv6" => {
                self.op().ipv6 = true;
                self.op().ipv4 = false;
            }
            "unix-socket" => self.op().unix_socket = Some((a(), false)),
            "abstract-unix-socket" => self.op().unix_socket = Some((a(), true)),
            "local-port" => {
                let v = a();
                let (lo, hi) = match v.split_once('-') {
                    Some((l, h)) => (parse_num(name, l)?, parse_num(name, h)?),
                    None => {
                        let p = parse_num(name, &v)?;
                        (p, p)
                    }
                };
                if !(0..=65535).contains(&lo) || !(0..=65535).contains(&hi) || hi < lo {
                    return Err(perr(format!(
                        "option --{name}: expected a proper numerical parameter"
                    )));
                }
                self.op().local_port = Some((lo as u16, (hi - lo + 1) as u16));
            }
            "interface" => self.op().interface = Some(a()),
            "tcp-nodelay" => self.op().tcp_nodelay = on,
            "keepalive" => self.op().keepalive = on,
            "proxy-insecure" => {
                self.op().proxy_tls.verify_peer = !on;
                self.op().proxy_tls.verify_host = !on;
            }
            "proxy-cacert" => self.op().proxy_tls.cafile = Some(a()),
            "proxy-capath" => self.op().proxy_tls.capath = Some(a()),
            "proxy-ca-native" => self.op().proxy_tls.ca_native = on,
            "proxy-cert" => {
                let (cert, pass) = split_cert_arg(&a());
                self.op().proxy_tls.cert = Some(cert);
                if pass.is_some() {
                    self.op().proxy_tls.key_passwd = pass;
                }
            }
            "proxy-cert-type" => self.op().proxy_tls.cert_type = Some(a()),
            "proxy-key" => self.op().proxy_tls.key = Some(a()),
            "proxy-key-type" => self.op().proxy_tls.key_type = Some(a()),
            "proxy-pass" => self.op().proxy_tls.key_passwd = Some(a()),
            "proxy-pinnedpubkey" => self.op().proxy_tls.pinned_pubkey = Some(a()),
            "proxy-ciphers" => self.op().proxy_tls.ciphers = Some(a()),
            "proxy-tls13-ciphers" => self.op().proxy_tls.tls13_ciphers = Some(a()),
            "proxy-crlfile" => self.op().proxy_tls.crlfile = Some(a()),
            "proxy-tlsv1" => self.op().proxy_tls.min_version = TlsVersion::V1_0,
            // Accepted as curl does: BEAST workarounds are not disabled by rustls, and no
            // OS client certificate store exists here.
            "proxy-ssl-allow-beast" | "proxy-ssl-auto-client-cert" => {}
            "insecure" => {
                self.op().tls.verify_peer = !on;
                self.op().tls.verify_host = !on;
            }
            "cacert" => self.op().tls.cafile = Some(a()),
            "hsts" => self.op().hsts = Some(a()),
            "alt-svc" => self.op().alt_svc = Some(a()),
            "capath" => self.op().tls.capath = Some(a()),
            "ca-native" => self.op().tls.ca_native = on,
            "cert" => {
                let (cert, pass) = split_cert_arg(&a());
                self.op().tls.cert = Some(cert);
                if pass.is_some() {
                    self.op().tls.key_passwd = pass;
                }
            }
            "cert-type" => self.op().tls.cert_type = Some(a()),
            "key" => self.op().tls.key = Some(a()),
            "key-type" => self.op().tls.key_type = Some(a()),
            "pass" => self.op().tls.key_passwd = Some(a()),
            "pinnedpubkey" => self.op().tls.pinned_pubkey = Some(a()),
            "cert-status" => self.op().tls.verify_status = on,
            "ciphers" => self.op().tls.ciphers = Some(a()),
            "tls13-ciphers" => self.op().tls.tls13_ciphers = Some(a()),
            "curves" => self.op().tls.curves = Some(a()),
            "crlfile" => self.op().tls.crlfile = Some(a()),
            "alpn" => self.op().tls.alpn = on,
            "no-alpn" => self.op().tls.alpn = false,
            "sessionid" => self.op().tls.session_cache = on,
            "no-sessionid" => self.op().tls.session_cache = false,
            // Early data is sent with the OpenSSL backend, as curl's; its rustls backend has
            // none.
            "tls-earlydata" => self.op().tls.earlydata = on,
            // Accepted; rustls has no False Start, and revocation is not checked.
            "false-start" | "ssl-no-revoke" => {}
            "sslv2" | "sslv3" => {
                self.warn(&format!(
                    "--{name} is deprecated and has no function anymore"
                ));
            }
            "tlsv1" | "tlsv1.0" => self.op().tls.min_version = TlsVersion::V1_0,
            "tlsv1.1" => self.op().tls.min_version = TlsVersion::V1_1,
            "tlsv1.2" => self.op().tls.min_version = TlsVersion::V1_2,
            "tlsv1.3" => self.op().tls.min_version = TlsVersion::V1_3,
            "tls-max" => {
                let v = a();
                self.op().tls.max_version = TlsVersion::parse_max(&v)
                    .ok_or_else(|| perr(format!("option --{name}: is badly used here")))?;
            }
            "no-keepalive" => self.op().keepalive = false,
            "keepalive-time" => {
                self.op().keepalive_time = Some(parse_num(name, &a())? as u32);
                self.op().keepalive = true;
            }
            "path-as-is" => self.op().path_as_is = on,
            "proto-default" => {
                let v = a();
                if !crate::proto::known(&v) {
                    return Err(ParseError {
                        msg: format!(
                            "option --{name}: a specified protocol is unsupported by libcurl"
                        ),
                        code: 1,
                    });
                }
                self.op().proto_default = Some(v);
            }
            "proto" | "proto-redir" => {
                // Each use starts again from the defaults (curl's proto2num presets).
                let start = if name == "proto" {
                    crate::proto::all()
                } else {
                    ["ftp", "ftps", "http", "https"].map(String::from).to_vec()
                };
                let (set, unknown) = crate::proto::parse(&a(), &start);
                for u in unknown {
                    self.warn(&format!("unrecognized protocol '{u}'"));
                }
                if name == "proto" {
                    self.op().proto = Some(set);
                } else {
                    self.op().proto_redir = Some(set);
                }
            }
            "clobber" => {
                if self.op().continue_at.is_some() && !on {
                    return self.bad_use(
                        name,
                        "--continue-at is mutually exclusive with --no-clobber",
                    );
                }
                self.op().no_clobber = !on;
                self.op().clobber_always = on;
            }
            "remote-header-name" => self.op().content_disposition = on,
            "etag-save" => {
                self.etag_single_url(name)?;
                self.op().etag_save = Some(a());
            }
            "xattr" => self.op().xattr = on,
            "create-file-mode" => {
                let v = a();
                // Octal digits only: no sign, no blanks.
                let digits = !v.is_empty() && v.bytes().all(|b| (b'0'..=b'7').contains(&b));
                let mode = u64::from_str_radix(if digits { &v } else { "x" }, 8).map_err(|_| {
                    perr(format!(
                        "option --{name}: expected a proper numerical parameter"
                    ))
                })?;
                if mode > 0o777 {
                    return Err(perr(format!("option --{name}: too large number")));
                }
                self.op().create_file_mode = Some(mode as u32);
            }
            "etag-compare" => {
                self.etag_single_url(name)?;
                self.op().etag_compare = Some(a());
            }
            "remote-time" => self.op().remote_time = on,
            "remove-on-error" => {
                if self.op().continue_at.is_some() && on {
                    return self.bad_use(
                        name,
                        "--continue-at is mutually exclusive with --remove-on-error",
                    );
                }
                self.op().remove_on_error = on;
            }
            "time-cond" => {
                let silent = self.cfg.global.silent;
                self.op().time_cond = time_cond(&a(), silent);
            }
            "retry" => self.op().retry.retries = parse_unum(name, &a())?,
            "retry-delay" => self.op().retry.delay = parse_secs_ms(name, &a())?,
            "retry-max-time" => self.op().retry.max_time = parse_secs_ms(name, &a())?,
            "retry-all-errors" => self.op().retry.all_errors = on,
            "retry-connrefused" => self.op().retry.connrefused = on,
            "cookie" => self.op().cookie.push(a()),
            "cookie-jar" => self.op().cookie_jar = Some(a()),
            "basic" => self.auth_bit(oxcurl_core::auth::BASIC, on),
            "digest" => self.auth_bit(oxcurl_core::auth::DIGEST, on),
            "ntlm" => self.auth_bit(oxcurl_core::auth::NTLM, on),
            // --no-anyauth leaves the schemes alone, as in curl.
            "anyauth" => {
                if on {
                    self.op().authtype = oxcurl_core::auth::ANY;
                }
            }
            "oauth2-bearer" => {
                self.op().bearer = Some(a());
                self.op().authtype |= oxcurl_core::auth::BEARER;
            }
            "form" | "form-string" => {
                let mut warnings = Vec::new();
                let arg = a();
                let r = self
                    .op()
                    .form
                    .add(&arg, name == "form-string", &mut warnings);
                self.warn_all(&warnings);
                match r {
                    Ok(()) => {}
                    Err(e) => {
                        self.warn(&e);
                        return Err(perr(format!("option {}: is badly used here", self.typed)));
                    }
                }
            }
            "form-escape" => self.op().form_escape = on,
            "variable" => {
                let mut warnings = Vec::new();
                let r = self.vars.set(&a(), &mut warnings, read_arg_file);
                self.warn_all(&warnings);
                match r {
                    Ok(()) => {}
                    Err(crate::var::VarError::ReadFile(why)) => {
                        self.error(&why);
                        return Err(read_error(name));
                    }
                    Err(crate::var::VarError::Syntax) => {
                        return Err(perr(format!(
                            "option --{name}: syntax error in --variable argument"
                        )));
                    }
                    Err(e) => {
                        if let crate::var::VarError::NotSet(v) = e {
                            self.error(&format!("Variable '{v}' import fail, not set"));
                        }
                        return Err(perr(format!("option --{name}: variable expansion failure")));
                    }
                }
            }
            "url-query" => {
                let v = a();
                if !v.starts_with('+') {
                    check_data_file(name, &v, true)?;
                }
                self.op().url_query.push(v)
            }
            "aws-sigv4" => {
                self.op().aws_sigv4 = Some(a());
                self.op().authtype |= oxcurl_core::auth::AWS_SIGV4;
            }
            "netrc" => self.op().netrc = on,
            "netrc-optional" => self.op().netrc_optional = on,
            "disable-epsv" => self.op().disable_epsv = on,
            "ftp-skip-pasv-ip" => self.op().ftp_use_pasv_ip = !on,
            "use-ascii" => self.op().use_ascii = on,
            "quote" => {
                let v = a().into_bytes();
                let f = &mut self.op().ftp;
                match v.first() {
                    Some(b'-') => f.postquote.push(v[1..].to_vec()),
                    Some(b'+') => f.prequote.push(v[1..].to_vec()),
                    _ => f.quote.push(v),
                }
            }
            "ftp-port" => self.op().ftp.port = Some(a()),
            "ftp-pasv" => self.op().ftp.port = None,
            "disable-eprt" => self.op().ftp.disable_eprt = on,
            "ftp-pret" => self.op().ftp.use_pret = on,
            "ftp-create-dirs" => self.op().ftp.create_dirs = if on { 2 } else { 0 },
            "list-only" => self.op().ftp.list_only = on,
            "append" => self.op().ftp.append = on,
            "ftp-account" => self.op().ftp.account = Some(a()),
            "ftp-alternative-to-user" => self.op().ftp.alternative_to_user = Some(a()),
            "netrc-file" => self.op().netrc_file = Some(a()),
            "fail-early" => self.cfg.global.fail_early = on,
            "rate" => self.cfg.global.rate_ms = parse_rate(&a())?,
            "junk-session-cookies" => self.op().junk_session_cookies = on,
            "config" => {
                let f = a();
                self.config_file(&f)?;
            }
            // Options of protocols this build does not speak (FTP, SMTP, IMAP, POP3, SSH,
            // TELNET, TFTP, LDAP, IPFS) and TLS switches of other backends: curl stores
            // them and an HTTP transfer never reads them, so they are accepted and have no
            // effect. Arguments are still checked as curl checks them.
            "compressed-ssh"
            | "doh-cert-status"
            | "doh-insecure"
            | "mail-rcpt-allowfails"
            | "sasl-ir"
            | "socks5-gssapi-nec"
            | "ssl-allow-beast"
            | "ssl-auto-client-cert"
            | "ssl-revoke-best-effort"
            | "tftp-no-options" => {}
            // Accepted, not applied: the terminal styling of header names, Linux TCP Fast
            // Open and MPTCP (the kernel falls back to plain TCP the same way).
            "styled-output" | "tcp-fastopen" | "mptcp" => {}
            "hostpubsha256"
            | "login-options"
            | "mail-auth"
            | "mail-from"
            | "mail-rcpt"
            | "pubkey"
            | "sasl-authzid"
            | "service-name"
            | "proxy-service-name"
            | "socks5-gssapi-service"
            | "telnet-option"
            | "ipfs-gateway" => {}
            // TLS-SRP credentials: without `--tlsauthtype SRP` (not built, as in curl's
            // OpenSSL 3 builds) they select nothing.
            "tlsuser" | "tlspassword" | "proxy-tlsuser" | "proxy-tlspassword" => {}
            "tftp-blksize" => {
                parse_unum(name, &a())?;
            }
            "keepalive-cnt" => {
                self.op().keepalive_cnt = Some(parse_unum(name, &a())?.min(u32::MAX as u64) as u32)
            }
            "happy-eyeballs-timeout-ms" => {
                self.op().happy_eyeballs_ms = Some(parse_unum(name, &a())?)
            }
            "ip-tos" => {
                let v = a();
                let tos = match IP_TOS_NAMES.binary_search_by(|(n, _)| n.cmp(&v.as_str())) {
                    Ok(i) => IP_TOS_NAMES[i].1,
                    Err(_) => {
                        let n = parse_unum(name, &v)?;
                        if n > 0xff {
                            return Err(perr(format!("option --{name}: too large number")));
                        }
                        n as u32
                    }
                };
                self.op().ip_tos = Some(tos);
            }
            "skip-existing" => self.op().skip_existing = on,
            "ignore-content-length" => self.op().ignore_content_length = on,
            "disallow-username-in-url" => self.op().disallow_username_in_url = on,
            "hostpubmd5" => {
                if a().len() != 32 {
                    return Err(perr(format!("option --{name}: is badly used here")));
                }
            }
            "ftp-method" => {
                use oxcurl_core::proto::ftp::FileMethod;
                self.op().ftp.method = match a().as_str() {
                    "singlecwd" => FileMethod::SingleCwd,
                    "nocwd" => FileMethod::NoCwd,
                    "multicwd" => FileMethod::MultiCwd,
                    other => {
                        self.warn(&format!(
                            "unrecognized ftp file method '{other}', using default"
                        ));
                        FileMethod::MultiCwd
                    }
                };
            }
            "ssl" | "ftp-ssl" => {
                self.op().ftp_ssl = on;
                if on {
                    self.warn(&format!(
                        "--{name} is an insecure option, consider --ssl-reqd instead"
                    ));
                }
            }
            "ssl-reqd" | "ftp-ssl-reqd" => self.op().ftp_ssl_reqd = on,
            "ftp-ssl-control" => self.op().ftp_ssl_control = on,
            "ftp-ssl-ccc" => {
                let op = self.op();
                op.ftp_ssl_ccc = on;
                op.ftp_ssl_ccc_mode.get_or_insert(FtpCcc::Passive);
            }
            "ftp-ssl-ccc-mode" => {
                let v = a();
                let mode = if v.eq_ignore_ascii_case("passive") {
                    FtpCcc::Passive
                } else if v.eq_ignore_ascii_case("active") {
                    FtpCcc::Active
                } else {
                    self.warn(&format!("unrecognized ftp CCC method '{v}', using default"));
                    FtpCcc::Passive
                };
                let op = self.op();
                op.ftp_ssl_ccc = true;
                op.ftp_ssl_ccc_mode = Some(mode);
            }
            "delegation" => {
                if !matches!(a().as_str(), "none" | "policy" | "always") {
                    self.warn(&format!(
                        "unrecognized delegation method '{}', using none",
                        a()
                    ));
                }
            }
            // Options curl itself has retired.
            "egd-file" | "random-file" | "metalink" | "ntlm-wb" | "npn" => {
                self.warn(&format!(
                    "--{name} is deprecated and has no function anymore"
                ));
            }
            "libcurl" => {
                self.warn("--libcurl option was disabled at build-time");
                return Err(perr(format!("option --{name}: is unknown")));
            }
            "manual" => {
                if on {
                    self.cfg.action = Some(Action::Manual);
                }
            }
            "dump-ca-embed" => {
                if on {
                    self.cfg.action = Some(Action::DumpCaEmbed);
                }
            }
            // Features this build does not have: curl's answer when its libcurl lacks them.
            "dns-interface" | "dns-ipv4-addr" | "dns-ipv6-addr" | "dns-servers" | "doh-url"
            | "ech" | "engine" | "http3" | "http3-only" | "krb" | "negotiate"
            | "proxy-negotiate" | "proxy-tlsauthtype" | "sigalgs" | "socks5-gssapi"
            | "ssl-sessions" | "tlsauthtype" | "vlan-priority" => {
                if on {
                    return Err(perr(format!(
                        "option --{name}: the installed libcurl version does not support this"
                    )));
                }
            }
            _ => return Err(perr(format!("option --{name}: is unknown"))),
        }
        Ok(())
    }

    /// Parse one argument list. `args` excludes the program name.
    fn parse_args(&mut self, args: &[String]) -> Result<(), ParseError> {
        let mut i = 0;
        let mut only_urls = false;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            if only_urls || !arg.starts_with('-') || arg == "-" {
                if arg.is_empty() {
                    // curl reads a bare argument as `--url` named as typed: nothing.
                    return Err(blank_argument(""));
                }
                // curl names a bare URL as the option in errors.
                self.add_url(arg.clone()).map_err(|mut e| {
                    e.msg = e
                        .msg
                        .replacen("option --url:", &format!("option {arg}:"), 1);
                    e
                })?;
                continue;
            }
            if arg == "--" {
                only_urls = true;
                continue;
            }
            match self.getparameter(arg, args.get(i).map(String::as_str))? {
                Got::Done => {}
                Got::UsedArg => i += 1,
                Got::Next => {
                    if !self.has_url() {
                        self.error("missing URL before --next");
                        return Err(perr(format!("option {arg}: is badly used here")));
                    }
                    self.next_operation();
                }
            }
        }
        Ok(())
    }

    /// The operation has a URL to go with `--next` (curl looks at its first URL node).
    fn has_url(&mut self) -> bool {
        self.op().urls.first().is_some_and(|u| !u.url.is_empty())
    }

    fn next_operation(&mut self) {
        self.cfg.ops.push(Operation {
            tcp_nodelay: true,
            ..Operation::default()
        });
    }

    /// curl's `getparameter`: one option (`--name`, a group of short ones like `-sSo`, or
    /// in a config file a name without dashes) and the argument that may follow it, which
    /// it says whether it used.
    fn getparameter(&mut self, flag: &str, nextarg: Option<&str>) -> Result<Got, ParseError> {
        let long = match flag.strip_prefix("--") {
            Some(l) => Some(l),
            None if !flag.starts_with('-') => Some(flag),
            None => None,
        };
        if let Some(long) = long {
            self.nopts = 0;
            // --expand-OPTION: the argument goes through variable expansion.
            let (long, expand) = match long.strip_prefix("expand-") {
                Some(l) if find_long(l).is_some_and(|o| o.kind == Kind::Arg) => (l, true),
                _ => (long, false),
            };
            let (o, negated) = match find_long(long) {
                Some(o) => (o, false),
                None => match long.strip_prefix("no-").and_then(find_long) {
                    Some(o) if matches!(o.kind, Kind::Bool | Kind::NoBool) => (o, true),
                    _ => return Err(perr(format!("option {flag}: is unknown"))),
                },
            };
            self.typed = flag.split('=').next().unwrap_or(flag).to_string();
            if o.long == "next" {
                return Ok(Got::Next);
            }
            if o.long == "help" {
                self.apply_typed(o, false, nextarg.map(str::to_string))?;
                return Ok(if nextarg.is_some() {
                    Got::UsedArg
                } else {
                    Got::Done
                });
            }
            if o.kind != Kind::Arg {
                self.apply_typed(o, negated, None)?;
                return Ok(Got::Done);
            }
            let Some(v) = nextarg else {
                return Err(perr(format!("option {flag}: requires parameter")));
            };
            let v = if expand {
                self.expand(v)?
            } else {
                v.to_string()
            };
            self.apply_arg(o, v)?;
            return Ok(Got::UsedArg);
        }
        // A group of short options.
        self.nopts = 0;
        let chars: Vec<char> = flag[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            let Some(o) = find_short(c) else {
                // curl names the whole argument, wherever the unknown letter is.
                return Err(perr(format!("option {flag}: is unknown")));
            };
            self.typed = format!("-{c}");
            if o.long == "next" {
                return Ok(Got::Next);
            }
            if o.long == "help" {
                // `-h TOPIC` takes the next argument, if any. Letters after the `h` in
                // the same group make curl 8.14.1 drop the group and ask for no help
                // (`-hI URL` is a plain GET): the same here.
                if k < chars.len() {
                    break;
                }
                self.apply_typed(o, false, nextarg.map(str::to_string))?;
                return Ok(if nextarg.is_some() {
                    Got::UsedArg
                } else {
                    Got::Done
                });
            }
            if o.kind == Kind::Arg {
                let rest: String = chars[k..].iter().collect();
                if !rest.is_empty() {
                    self.apply_arg(o, rest)?;
                    return Ok(Got::Done);
                }
                let Some(v) = nextarg else {
                    return Err(perr(format!("option -{c}: requires parameter")));
                };
                self.apply_arg(o, v.to_string())?;
                return Ok(Got::UsedArg);
            }
            self.apply_typed(o, false, None)?;
            self.nopts += 1;
        }
        Ok(Got::Done)
    }

    /// An option with its argument, after curl's warnings about arguments that look
    /// mistyped: a file name that looks like an option, a Unicode opening quote.
    fn apply_arg(&mut self, o: &'static Opt, v: String) -> Result<(), ParseError> {
        if FILE_ARGS.binary_search(&o.long).is_ok() && v.starts_with('-') && v.len() > 1 {
            self.warn(&format!("The filename argument '{v}' looks like a flag."));
        } else if v.starts_with('\u{201c}') {
            self.warn(&format!(
                "The argument '{v}' starts with a Unicode quote where maybe an ASCII \" was \
                 intended?"
            ));
        }
        self.apply_typed(o, false, Some(v))
    }

    /// `-K FILE` (`-` for standard input): curl's config syntax, one option per line. A
    /// file that cannot be read, or an error on one of its lines, fails the `-K` with 26
    /// after curl's messages.
    fn config_file(&mut self, path: &str) -> Result<(), ParseError> {
        if self.read_config(path).is_err() {
            self.error(&format!("cannot read config from '{path}'"));
            return Err(read_error("config"));
        }
        Ok(())
    }

    /// curl's `parseconfig`: each line is handed to `getparameter` as an option and its
    /// argument; an error names the file and line (lines that are blank or comments are
    /// not counted, as in curl).
    fn read_config(&mut self, path: &str) -> Result<(), ()> {
        let data = read_arg_file(path).map_err(|_| ())?;
        let lines = file_lines(&data, CONFIG_LINE_MAX).map_err(|_| ())?;
        let name = if path == "-" { "<stdin>" } else { path };
        let mut lineno = 0;
        for line in &lines {
            lineno += 1;
            let l = parse_config_line(line);
            if l.unquoted_whitespace {
                self.warn(&format!(
                    "{name}:{lineno}: warning: '{}' uses unquoted whitespace",
                    l.option
                ));
                self.warn("This may cause side-effects. Consider using double quotes?");
            }
            let r = match self.getparameter(l.option, l.param.as_deref()) {
                Ok(Got::Done) if l.param.as_deref().is_some_and(|p| !p.is_empty()) => {
                    Err(perr("option: had unsupported trailing garbage"))
                }
                Ok(Got::Next) => {
                    // Without a URL yet, curl ignores the `--next`.
                    if self.has_url() {
                        self.next_operation();
                    }
                    Ok(())
                }
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            // curl shows help asked for in a config file at once and reads on.
            if let Some(Action::Help(topic)) = &self.cfg.action {
                self.cfg.config_help.push(topic.clone());
                self.cfg.action = None;
            }
            if let Err(e) = r {
                if !e.msg.is_empty() {
                    let reason = e
                        .msg
                        .strip_prefix("option ")
                        .and_then(|m| m.split_once(": "))
                        .map_or(e.msg.as_str(), |(_, r)| r);
                    let text = format!("{name}:{lineno}: '{}' {reason}", l.option);
                    self.error(&text);
                }
                return Err(());
            }
        }
        Ok(())
    }

    /// An error message as curl's `errorf` shows it: not with `-s` (not even with `-S`).
    fn error(&self, msg: &str) {
        if !self.cfg.global.silent {
            msg_out(&error_text(msg));
        }
    }
}

/// What `getparameter` did with the argument after the option.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Done,
    UsedArg,
    /// `--next`: the caller starts the next operation.
    Next,
}

/// Options whose argument is a file name (curl's `ARG_FILE`): one starting with a dash
/// gets a warning. Sorted.
const FILE_ARGS: &[&str] = &[
    "abstract-unix-socket",
    "cacert",
    "capath",
    "cert",
    "config",
    "crlfile",
    "dump-header",
    "etag-compare",
    "etag-save",
    "key",
    "netrc-file",
    "output",
    "proxy-cacert",
    "proxy-capath",
    "proxy-cert",
    "proxy-crlfile",
    "proxy-key",
    "random-file",
    "ssl-sessions",
    "stderr",
    "trace",
    "trace-ascii",
    "unix-socket",
    "upload-file",
];

/// Where curl's messages go once `--stderr` is given (curl switches at once, so later
/// warnings land there too).
#[derive(Debug)]
pub enum MsgDest {
    Stderr,
    /// `--stderr -`.
    Stdout,
    File(std::fs::File),
}

static MSG_DEST: std::sync::Mutex<MsgDest> = std::sync::Mutex::new(MsgDest::Stderr);

/// Write a message (warning, error) where curl's go.
pub fn msg_out(text: &str) {
    use std::io::Write;
    let mut dest = MSG_DEST.lock().unwrap_or_else(|e| e.into_inner());
    let _ = match &mut *dest {
        MsgDest::Stderr => std::io::stderr().write_all(text.as_bytes()),
        MsgDest::Stdout => std::io::stdout().write_all(text.as_bytes()),
        MsgDest::File(f) => f.write_all(text.as_bytes()),
    };
}

/// `--stderr FILE`: messages go to FILE (`-`: standard output) from now on. A file that
/// cannot be created leaves them where they were.
fn set_msg_file(path: &str) {
    let mut dest = MSG_DEST.lock().unwrap_or_else(|e| e.into_inner());
    if path == "-" {
        *dest = MsgDest::Stdout;
    } else if let Ok(f) = std::fs::File::create(path) {
        *dest = MsgDest::File(f);
    }
}

/// Where the transfers' messages go (a copy of the `--stderr` destination).
pub fn msg_dest() -> MsgDest {
    let dest = MSG_DEST.lock().unwrap_or_else(|e| e.into_inner());
    match &*dest {
        MsgDest::File(f) => f.try_clone().map_or(MsgDest::Stderr, MsgDest::File),
        MsgDest::Stdout => MsgDest::Stdout,
        MsgDest::Stderr => MsgDest::Stderr,
    }
}

/// The lines of a config file that curl reads: not blank, not comments (`#` as the
/// first non-blank). A line keeps its leading blanks.
/// curl's line limits for what its tool reads with `my_get_line`: config files
/// (`MAX_CONFIG_LINE_LENGTH`), `-H @file` headers and `--url @file` URLs.
const CONFIG_LINE_MAX: usize = 10 * 1024 * 1024;
const HEADER_FILE_LINE_MAX: usize = 100 * 1024;
const URL_FILE_LINE_MAX: usize = 8092;

/// The lines of a config file, `-H @file` or `--url @file` as curl's tool reads them
/// (`my_get_line`: C strings from `fgets`, so a zero byte cuts the rest of its 127-byte piece;
/// blank and comment lines left out), as text; Err for a line of `max` bytes or more.
pub fn file_lines(data: &[u8], max: usize) -> Result<Vec<String>, ()> {
    let lines = oxcurl_core::getline::tool_lines(data, max).map_err(|_| ())?;
    Ok(lines
        .into_iter()
        .map(|l| String::from_utf8_lossy(&l).into_owned())
        .collect())
}

/// One config file line, split as curl's `parseconfig` does.
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigLine<'a> {
    /// The option: a name (`url`), `--name`, or short options (`-sS`).
    pub option: &'a str,
    /// Its argument: `"quoted with \escapes"` or up to the first white space; None when
    /// there is none (an empty quoted one is `Some("")`).
    pub param: Option<String>,
    /// An unquoted argument with more text after white space (curl warns).
    pub unquoted_whitespace: bool,
}

/// Split a config line: the option ends at a blank, or for a name without a dash also at
/// `=` or `:`; blanks (and those separators) before the argument are skipped.
pub fn parse_config_line(line: &str) -> ConfigLine<'_> {
    let dashed = line.starts_with('-');
    let is_sep = |c: char| !dashed && (c == '=' || c == ':');
    let end = line
        .find(|c: char| c == ' ' || c == '\t' || is_sep(c))
        .unwrap_or(line.len());
    let option = &line[..end];
    // One character (blank or separator) ends the option; then blanks and separators.
    let mut rest = line[end..].get(1..).unwrap_or("");
    rest = rest.trim_start_matches(|c: char| c == ' ' || c == '\t' || is_sep(c));
    if let Some(q) = rest.strip_prefix('"') {
        return ConfigLine {
            option,
            param: Some(unslashquote(q)),
            unquoted_whitespace: false,
        };
    }
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c');
    let pend = rest.find(is_space).unwrap_or(rest.len());
    let param = &rest[..pend];
    let after = rest[pend..]
        .get(1..)
        .unwrap_or("")
        .trim_start_matches([' ', '\t']);
    let unquoted_whitespace = !matches!(after.chars().next(), None | Some('\r' | '\n' | '#'));
    ConfigLine {
        option,
        param: (!param.is_empty()).then(|| param.to_string()),
        unquoted_whitespace,
    }
}

/// A quoted config argument up to its closing quote: `\t`, `\n`, `\r`, `\v` and any
/// other escaped character.
fn unslashquote(q: &str) -> String {
    let mut out = String::new();
    let mut it = q.chars();
    while let Some(c) = it.next() {
        match c {
            '"' => break,
            '\\' => match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('v') => out.push('\x0b'),
                Some(o) => out.push(o),
                None => break,
            },
            o => out.push(o),
        }
    }
    out
}

/// Parse a config file's text as `-q -K FILE` would, without the messages about lines
/// (for the fuzz target).
#[allow(dead_code)]
pub fn parse_config_text(data: &[u8]) -> Result<Config, ParseError> {
    let mut p = Parser::new();
    let lines = file_lines(data, CONFIG_LINE_MAX).map_err(|_| read_error("config"))?;
    for line in &lines {
        let l = parse_config_line(line);
        match p.getparameter(l.option, l.param.as_deref())? {
            Got::Next if p.has_url() => p.next_operation(),
            _ => {}
        }
    }
    Ok(p.cfg)
}

/// Read `@file` arguments; `-` is standard input.
/// curl's `file2string` for `-d @file` and `-w @file`: the file's contents with every
/// CR, LF and zero byte removed.
pub fn file_to_string(data: &[u8]) -> Vec<u8> {
    data.iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n' && b != 0)
        .collect()
}

pub fn read_arg_file(f: &str) -> std::io::Result<Vec<u8>> {
    if f == "-" {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)?;
        Ok(v)
    } else {
        std::fs::read(f)
    }
}

/// curl's `PARAM_READ_ERROR`: exit 26 naming the option.
fn read_error(name: &str) -> ParseError {
    ParseError {
        msg: format!("option --{name}: error encountered when reading a file"),
        code: 26,
    }
}

/// `-d @file` and friends: curl reads the file while parsing, so a missing or unreadable
/// one is an argument error, and the contents are kept for every URL. `@-` (stdin) is read
/// later. For `--data-urlencode` the `@` may follow a name (`name@file`); a `=` before it
/// makes it content.
fn load_data_file(name: &str, v: &str, urlencode: bool) -> Result<Option<Vec<u8>>, ParseError> {
    match data_file_name(v, urlencode) {
        Some(f) if f != "-" => std::fs::read(f).map(Some).map_err(|_| read_error(name)),
        _ => Ok(None),
    }
}

/// The file an `@` argument names, if any (see `load_data_file`).
fn data_file_name(v: &str, urlencode: bool) -> Option<&str> {
    if urlencode {
        match urlencode_parts(v).1 {
            UrlEncodeSource::File(f) => Some(f),
            UrlEncodeSource::Text(_) => None,
        }
    } else {
        v.strip_prefix('@')
    }
}

/// `--url-query`'s file check while parsing (the file is read when the URL is built).
fn check_data_file(name: &str, v: &str, urlencode: bool) -> Result<(), ParseError> {
    let file = if urlencode {
        match urlencode_parts(v).1 {
            UrlEncodeSource::File(f) => Some(f),
            UrlEncodeSource::Text(_) => None,
        }
    } else {
        v.strip_prefix('@')
    };
    match file {
        Some(f) if f != "-" && std::fs::File::open(f).is_err() => Err(read_error(name)),
        _ => Ok(()),
    }
}

/// Where a `--data-urlencode` (or `--url-query`) argument's content comes from.
#[derive(Debug, PartialEq, Eq)]
pub enum UrlEncodeSource<'a> {
    Text(&'a str),
    File(&'a str),
}

/// Split a `--data-urlencode` argument: `content`, `=content`, `name=content`, `@file`,
/// `name@file` (an `@` after the first `=` is content). Returns the name, if any, and the
/// content's source.
pub fn urlencode_parts(arg: &str) -> (Option<&str>, UrlEncodeSource<'_>) {
    if let Some(rest) = arg.strip_prefix('=') {
        return (None, UrlEncodeSource::Text(rest));
    }
    let eq = arg.find('=');
    match arg.find('@') {
        Some(a) if eq.is_none_or(|e| a < e) => (
            Some(&arg[..a]).filter(|s| !s.is_empty()),
            UrlEncodeSource::File(&arg[a + 1..]),
        ),
        _ => match eq {
            Some(e) => (Some(&arg[..e]), UrlEncodeSource::Text(&arg[e + 1..])),
            None => (None, UrlEncodeSource::Text(arg)),
        },
    }
}

fn parse_num(name: &str, v: &str) -> Result<i64, ParseError> {
    v.trim().parse::<i64>().map_err(|_| {
        perr(format!(
            "option --{name}: expected a proper numerical parameter"
        ))
    })
}

/// `-z`: `+` (or nothing) for If-Modified-Since, `-` for If-Unmodified-Since, `=` for
/// Last-Modified, then a date or the name of a file whose modification time is used. Neither
/// a date nor a file: curl warns and drops the condition.
fn time_cond(arg: &str, silent: bool) -> Option<(oxcurl_core::options::TimeCondition, i64)> {
    use oxcurl_core::options::TimeCondition as T;
    let (cond, rest) = match arg.as_bytes().first() {
        Some(b'+') => (T::IfModSince, &arg[1..]),
        Some(b'-') => (T::IfUnmodSince, &arg[1..]),
        Some(b'=') => (T::LastMod, &arg[1..]),
        _ => (T::IfModSince, arg),
    };
    let t = oxcurl_core::parsedate::getdate(rest.as_bytes());
    if t != -1 {
        return Some((cond, t));
    }
    let warn = |m: &str| {
        if !silent {
            msg_out(&warning_text(m));
        }
    };
    match std::fs::metadata(rest).and_then(|m| m.modified()) {
        Ok(mtime) => {
            let secs = match mtime.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => d.as_secs() as i64,
                Err(e) => -(e.duration().as_secs() as i64),
            };
            Some((cond, secs))
        }
        Err(e) => {
            let text = oxcurl_core::connect::os_error_text(&e);
            warn(&format!("Failed to get filetime: {text}"));
            warn(
                "Illegal date format for -z, --time-cond (and not a filename). Disabling time \
                 condition. See curl_getdate(3) for valid date syntax.",
            );
            None
        }
    }
}

/// `--rate N[/[M]unit]`: N transfers per M units of s, m, h or d (per hour without a
/// unit); the result is the wait between transfer starts in milliseconds.
fn parse_rate(v: &str) -> Result<u64, ParseError> {
    let (num, unit) = match v.split_once('/') {
        Some((n, u)) => (n, Some(u)),
        None => (v, None),
    };
    if num.len() > 25 {
        return Err(perr("option --rate: too large number"));
    }
    let denominator = parse_unum("rate", num)?;
    if denominator < 1 {
        return Err(perr("option --rate: is badly used here"));
    }
    let mut numerator: u64 = 60 * 60 * 1000;
    if let Some(u) = unit {
        let digits = u.bytes().take_while(u8::is_ascii_digit).count();
        let (units, rest) = match u[..digits].parse::<u64>() {
            Ok(n) => (n, &u[digits..]),
            Err(_) => (1, u),
        };
        numerator = match rest.as_bytes().first() {
            Some(b's') => 1000,
            Some(b'm') => 60 * 1000,
            Some(b'h') => 60 * 60 * 1000,
            Some(b'd') => 24 * 60 * 60 * 1000,
            _ => {
                return Err(perr(
                    "unsupported --rate unit\ncurl: option --rate: is badly used here",
                ))
            }
        };
        if units == 0 {
            return Err(perr("option --rate: too large number"));
        }
        numerator = numerator.saturating_mul(units);
    }
    if denominator > numerator {
        return Err(perr("option --rate: too large number"));
    }
    Ok(numerator / denominator)
}

/// Seconds that curl keeps in milliseconds: more than fits after `* 1000` is refused.
fn parse_secs_ms(name: &str, v: &str) -> Result<u64, ParseError> {
    let n = parse_unum(name, v)?;
    if n > i64::MAX as u64 / 1000 {
        return Err(perr(format!("option --{name}: too large number")));
    }
    Ok(n)
}

/// curl's `str2unum`: a whole number, negative ones refused with their own text.
fn parse_unum(name: &str, v: &str) -> Result<u64, ParseError> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    let n = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<i64>().ok()
    } else {
        None
    };
    let n = n.ok_or_else(|| {
        perr(format!(
            "option --{name}: expected a proper numerical parameter"
        ))
    })?;
    u64::try_from(n).map_err(|_| {
        perr(format!(
            "option --{name}: expected a positive numerical parameter"
        ))
    })
}

/// curl's `str2offset`: digits only, up to the largest `curl_off_t`.
fn str2offset(name: &str, v: &str) -> Result<u64, ParseError> {
    Some(v)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<i64>().ok())
        .map(|n| n as u64)
        .ok_or_else(|| {
            perr(format!(
                "option --{name}: expected a proper numerical parameter"
            ))
        })
}

/// curl's `secs2ms`: whole seconds (digits only, below `LONG_MAX / 1000`), optionally a
/// dot and digits for the fraction; what follows is ignored (`5s` is 5 seconds). Returns
/// milliseconds.
fn secs2ms(name: &str, v: &str) -> Result<u64, ParseError> {
    let bad = || {
        perr(format!(
            "option --{name}: expected a proper numerical parameter"
        ))
    };
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let secs: u64 = v[..digits].parse().map_err(|_| bad())?;
    if secs > i64::MAX as u64 / 1000 - 1 {
        return Err(bad());
    }
    let mut ms = 0;
    if let Some(frac) = v[digits..].strip_prefix('.') {
        let len = frac.bytes().take_while(u8::is_ascii_digit).count();
        let mut fracs: u64 = frac[..len]
            .parse()
            .ok()
            .filter(|&f| f <= i64::MAX as u64)
            .ok_or_else(|| perr(format!("option --{name}: too large number")))?;
        // curl's table of divisors, its repeated 1000000 included.
        const DIGS: [u64; 9] = [
            1, 10, 100, 1000, 10000, 1000000, 1000000, 10000000, 100000000,
        ];
        let mut len = len;
        while len > 8 || fracs > i64::MAX as u64 / 100 {
            fracs /= 10;
            len -= 1;
        }
        ms = fracs * 100 / DIGS[len - 1];
    }
    Ok(secs * 1000 + ms)
}

/// Sizes with an optional k/M/G/T suffix (curl's `--max-filesize`).
fn parse_size(name: &str, v: &str) -> Result<u64, ParseError> {
    let v = v.trim();
    let (num, mult) = match v.chars().last() {
        Some('k' | 'K') => (&v[..v.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&v[..v.len() - 1], 1 << 20),
        Some('g' | 'G') => (&v[..v.len() - 1], 1 << 30),
        Some('t' | 'T') => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| {
            perr(format!(
                "option --{name}: expected a proper numerical parameter"
            ))
        })
}

/// Parse the whole command line (without the program name).
pub fn parse(args: &[String]) -> Result<Config, ParseError> {
    let mut p = Parser::new();
    if args.first().map(|a| a.as_str()) != Some("-q")
        && args.first().map(|a| a.as_str()) != Some("--disable")
    {
        // Errors in it are shown and otherwise ignored, as in curl.
        if let Some(rc) = curlrc_path() {
            let _ = p.read_config(&rc.to_string_lossy());
        }
    }
    p.parse_args(args)?;
    // Drop the entries that got an output or upload but no URL (curl warns when the
    // transfers reach them).
    for op in p.cfg.ops.iter_mut() {
        let before = op.urls.len();
        op.urls.retain(|u| !u.url.is_empty());
        op.unused_outputs = op.urls.len() < before;
    }
    for op in &p.cfg.ops {
        if let Some(msg) = method_conflict(op) {
            if !p.cfg.global.silent {
                msg_out(&warning_text(&msg));
            }
            return Err(ParseError {
                msg: String::new(),
                code: 2,
            });
        }
    }
    Ok(p.cfg)
}

/// curl's one-method rule (`SetHTTPrequest`): -I is set while parsing, then the data
/// options (POST, unless -G) and -T (PUT) are applied; a second, different method is an
/// error with a warning naming both.
fn method_conflict(op: &Operation) -> Option<String> {
    const HEAD: &str = "HEAD (-I, --head)";
    const POST: &str = "POST (-d, --data)";
    const PUT: &str = "PUT (-T, --upload-file)";
    let mut stored: Option<&str> = op.head.then_some(HEAD);
    let mut set = |req: &'static str| -> Option<String> {
        match stored {
            None => {
                stored = Some(req);
                None
            }
            Some(s) if s == req => None,
            Some(s) => Some(format!(
                "You can only select one HTTP request method! You asked for both {req} and {s}."
            )),
        }
    };
    if (!op.data.is_empty() || op.json) && !op.get {
        if let Some(m) = set(POST) {
            return Some(m);
        }
    }
    if !op.form.is_empty() {
        if let Some(m) = set("multipart formpost (-F, --form)") {
            return Some(m);
        }
    }
    if op.urls.iter().any(|u| u.upload.is_some()) {
        if let Some(m) = set(PUT) {
            return Some(m);
        }
    }
    None
}

/// A warning as curl's `warnf` prints it: `Warning: ` before each line, the text cut at the
/// last blank within 70 columns.
pub fn warning_text(msg: &str) -> String {
    prefixed_text("Warning: ", msg)
}

/// An error as curl's `errorf` prints it: `curl: ` before each line, cut as warnings are.
pub fn error_text(msg: &str) -> String {
    prefixed_text("curl: ", msg)
}

/// curl's notef layout (verbose notes): like [`warning_text`] with `Note: ` lines.
pub fn note_text(msg: &str) -> String {
    prefixed_text("Note: ", msg)
}

/// curl's `voutf`: the message cut into lines of at most 79 columns, prefix included,
/// at the last blank that fits.
fn prefixed_text(prefix: &str, msg: &str) -> String {
    let width = 79 - prefix.len();
    let mut out = String::new();
    let mut rest = msg;
    while !rest.is_empty() {
        out.push_str(prefix);
        if rest.len() > width {
            let cut = rest.as_bytes()[..width]
                .iter()
                .rposition(|&b| b == b' ' || b == b'\t')
                .map(|i| i + 1)
                .unwrap_or(width);
            let cut = (cut..=rest.len())
                .find(|&i| rest.is_char_boundary(i))
                .unwrap_or(rest.len());
            out.push_str(&rest[..cut]);
            rest = &rest[cut..];
        } else {
            out.push_str(rest);
            rest = "";
        }
        out.push('\n');
    }
    out
}

/// curl's `findfile(".curlrc")`: the first that can be opened of `$CURL_HOME/.curlrc`,
/// `$XDG_CONFIG_HOME/curlrc`, `$HOME/.curlrc`, then, when `XDG_CONFIG_HOME` is not set,
/// `$CURL_HOME/.config/curlrc` and `$HOME/.config/curlrc`. Empty variables are skipped.
fn curlrc_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let xdg = var("XDG_CONFIG_HOME");
    let curl_home = var("CURL_HOME");
    let home = var("HOME");
    let fallback = xdg.is_none();
    let candidates = [
        (curl_home.as_deref(), ".curlrc"),
        (xdg.as_deref(), "curlrc"),
        (home.as_deref(), ".curlrc"),
        (curl_home.as_deref().filter(|_| fallback), ".config/curlrc"),
        (home.as_deref().filter(|_| fallback), ".config/curlrc"),
    ];
    // One buffer for every candidate, so that a command line without a .curlrc costs two
    // allocations here (the HOME value and the buffer), not two per candidate.
    let mut path = std::ffi::OsString::with_capacity(256);
    for (dir, name) in candidates {
        let Some(dir) = dir else { continue };
        path.clear();
        path.push(dir);
        path.push("/");
        path.push(name);
        if std::fs::File::open(&path).is_ok() {
            return Some(PathBuf::from(path));
        }
    }
    None
}

/// `--cert file:password`: the first unescaped colon separates the password; `\:` and
/// `\\` are escapes.
fn split_cert_arg(arg: &str) -> (String, Option<String>) {
    let mut cert = String::new();
    let mut chars = arg.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(':') | Some('\\')) => {
                cert.push(chars.next().unwrap_or('\\'));
            }
            ':' => return (cert, Some(chars.collect())),
            _ => cert.push(c),
        }
    }
    (cert, None)
}

/// The proxy settings of an operation as `Options` (curl's `config2setopts` proxy part).
/// The proxy authentication switches; curl picks one in a fixed order.
#[derive(Clone, Debug, Default)]
pub struct ProxyAuthFlags {
    pub basic: bool,
    pub digest: bool,
    pub ntlm: bool,
    pub any: bool,
}

pub fn apply_proxy(op: &Operation, o: &mut oxcurl_core::Options) {
    use oxcurl_core::auth;
    let a = &op.proxy_auth;
    o.proxyauth = if a.any {
        auth::ANY
    } else if a.ntlm {
        auth::NTLM
    } else if a.digest {
        auth::DIGEST
    } else {
        auth::BASIC
    };
    if let Some((p, kind)) = &op.proxy {
        o.proxy = Some(p.clone());
        o.proxy_type = *kind;
    }
    // curl's tool sets CURLPROXY_HTTPS2 as the proxy type: an https:// or scheme-less proxy
    // (from -x or the environment) is then offered HTTP/2.
    if op.proxy_http2 && o.proxy_type == ProxyKind::Http {
        o.proxy_type = ProxyKind::Https2;
    }
    o.socks5_gssapi = !op.socks5_basic;
    if let Some(u) = &op.proxy_user {
        let (user, pass) = match u.split_once(':') {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (u.clone(), String::new()),
        };
        o.proxy_userpwd = Some((user, pass));
    }
    o.noproxy = op.noproxy.clone();
    o.pre_proxy = op.preproxy.clone();
    o.proxy_headers = op.proxy_headers.clone();
    o.http_proxy_tunnel = op.proxytunnel;
    o.suppress_connect_headers = op.suppress_connect_headers;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: &[&str]) -> Result<Config, ParseError> {
        parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// Both tables are searched with binary_search.
    #[test]
    fn lookup_tables_are_sorted() {
        assert!(DENY_BLANK.windows(2).all(|w| w[0] < w[1]));
        assert!(IP_TOS_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn urlencode_argument_forms() {
        use UrlEncodeSource::{File, Text};
        assert_eq!(urlencode_parts("a b"), (None, Text("a b")));
        assert_eq!(urlencode_parts("=x=@y"), (None, Text("x=@y")));
        assert_eq!(urlencode_parts("n=v@w"), (Some("n"), Text("v@w")));
        assert_eq!(urlencode_parts("n@f=g"), (Some("n"), File("f=g")));
        assert_eq!(urlencode_parts("@f"), (None, File("f")));
    }

    #[test]
    fn table_is_sorted_and_unique() {
        for w in OPTIONS.windows(2) {
            assert!(w[0].long < w[1].long, "{} before {}", w[0].long, w[1].long);
        }
        let mut shorts: Vec<char> = OPTIONS.iter().filter_map(|o| o.short).collect();
        shorts.sort();
        let n = shorts.len();
        shorts.dedup();
        assert_eq!(n, shorts.len());
    }

    #[test]
    fn combined_short_flags_and_attached_args() {
        let c = p(&["-q", "-sSLo", "out", "http://x", "-H", "A: b", "-XPUT"]).unwrap();
        assert!(c.global.silent && c.global.show_error);
        let op = &c.ops[0];
        assert!(op.location);
        assert_eq!(op.urls[0].url, "http://x");
        assert_eq!(op.urls[0].output.as_deref(), Some("out"));
        assert_eq!(op.method.as_deref(), Some("PUT"));
    }

    #[test]
    fn negation_and_errors() {
        let c = p(&["-q", "-L", "--no-location", "x"]).unwrap();
        assert!(!c.ops[0].location);
        assert_eq!(
            p(&["-q", "--foo"]).unwrap_err().msg,
            "option --foo: is unknown"
        );
        assert_eq!(
            p(&["-q", "-o"]).unwrap_err().msg,
            "option -o: requires parameter"
        );
        assert_eq!(
            p(&["-q", "--no-output", "x"]).unwrap_err().msg,
            "option --no-output: is unknown"
        );
        assert_eq!(
            p(&["-q", "--max-time", "abc"]).unwrap_err().msg,
            "option --max-time: expected a proper numerical parameter"
        );
    }

    #[test]
    fn next_splits_operations() {
        let c = p(&["-q", "-d", "x", "a", "--next", "b"]).unwrap();
        assert_eq!(c.ops.len(), 2);
        assert_eq!(c.ops[0].data.len(), 1);
        assert!(c.ops[1].data.is_empty());
        assert_eq!(c.ops[1].urls[0].url, "b");
    }

    #[test]
    fn config_lines_split_as_curl_does() {
        let l = |line| {
            let c = parse_config_line(line);
            (c.option, c.param, c.unquoted_whitespace)
        };
        let s = |v: &str| Some(v.to_string());
        assert_eq!(l("url = \"a b\\tc\" x"), ("url", s("a b\tc"), false));
        assert_eq!(l("data = arg with space"), ("data", s("arg"), true));
        assert_eq!(l("data=x # note"), ("data", s("x"), false));
        assert_eq!(l("-o out"), ("-o", s("out"), false));
        assert_eq!(l("-o=out"), ("-o=out", None, false));
        assert_eq!(l("silent"), ("silent", None, false));
        assert_eq!(l("header: \"\""), ("header", s(""), false));
        assert_eq!(l("url:http://x"), ("url", s("http://x"), false));
        let text = "# c\n\n  \t\nsilent\n  # more\nurl x\n";
        assert_eq!(
            file_lines(text.as_bytes(), CONFIG_LINE_MAX).unwrap(),
            ["silent", "url x"]
        );
    }
}
