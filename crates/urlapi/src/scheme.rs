//! The URL schemes libcurl 8.14.1 has handlers for (as built with all
//! protocols), with their default ports.

pub(crate) struct Handler {
    pub name: &'static str,
    pub defport: u16,
    /// PROTOPT_URLOPTIONS: ";options" in the userinfo are parsed.
    pub url_options: bool,
}

const fn h(name: &'static str, defport: u16, url_options: bool) -> Handler {
    Handler {
        name,
        defport,
        url_options,
    }
}

static HANDLERS: &[Handler] = &[
    h("dict", 2628, false),
    h("file", 0, false),
    h("ftp", 21, false),
    h("ftps", 990, false),
    h("gopher", 70, false),
    h("gophers", 70, false),
    h("http", 80, false),
    h("https", 443, false),
    h("imap", 143, true),
    h("imaps", 993, true),
    h("ldap", 389, false),
    h("ldaps", 636, false),
    h("mqtt", 1883, false),
    h("pop3", 110, true),
    h("pop3s", 995, true),
    h("rtmp", 1935, false),
    h("rtmpe", 1935, false),
    h("rtmps", 443, false),
    h("rtmpt", 80, false),
    h("rtmpte", 80, false),
    h("rtmpts", 443, false),
    h("rtsp", 554, false),
    h("scp", 22, false),
    h("sftp", 22, false),
    h("smb", 445, false),
    h("smbs", 445, false),
    h("smtp", 25, true),
    h("smtps", 465, true),
    h("telnet", 23, false),
    h("tftp", 69, false),
    h("ws", 80, false),
    h("wss", 443, false),
];

/// Case-insensitive handler lookup, like `Curl_get_scheme_handler`.
pub(crate) fn handler(scheme: &str) -> Option<&'static Handler> {
    HANDLERS
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(scheme))
}
