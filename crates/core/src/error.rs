//! curl's result codes (`CURLcode`) and the error value transfers end with: a code plus the
//! detailed message curl puts in its error buffer. Does no I/O.

use std::fmt;

macro_rules! codes {
    ($( $name:ident = $num:literal, $msg:literal; )*) => {
        /// `CURLcode`: the numeric result of a transfer, the tool's exit code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum Code { $( $name = $num, )* }

        impl Code {
            /// `curl_easy_strerror` text.
            pub fn strerror(self) -> &'static str {
                match self { $( Code::$name => $msg, )* }
            }
            /// The code for a number, if curl defines it.
            pub fn from_u32(n: u32) -> Option<Code> {
                match n { $( $num => Some(Code::$name), )* _ => None }
            }
            /// Every defined code, in numeric order.
            pub const ALL: &'static [Code] = &[ $( Code::$name, )* ];
        }
    };
}

codes! {
    Ok = 0, "No error";
    UnsupportedProtocol = 1, "Unsupported protocol";
    FailedInit = 2, "Failed initialization";
    UrlMalformat = 3, "URL using bad/illegal format or missing URL";
    NotBuiltIn = 4, "A requested feature, protocol or option was not found built-in in this libcurl due to a build-time decision.";
    CouldntResolveProxy = 5, "Could not resolve proxy name";
    CouldntResolveHost = 6, "Could not resolve hostname";
    CouldntConnect = 7, "Could not connect to server";
    WeirdServerReply = 8, "Weird server reply";
    RemoteAccessDenied = 9, "Access denied to remote resource";
    FtpAcceptFailed = 10, "FTP: The server failed to connect to data port";
    FtpWeirdPassReply = 11, "FTP: unknown PASS reply";
    FtpAcceptTimeout = 12, "FTP: Accepting server connect has timed out";
    FtpWeirdPasvReply = 13, "FTP: unknown PASV reply";
    FtpWeird227Format = 14, "FTP: unknown 227 response format";
    FtpCantGetHost = 15, "FTP: cannot figure out the host in the PASV response";
    Http2 = 16, "Error in the HTTP2 framing layer";
    FtpCouldntSetType = 17, "FTP: could not set file type";
    PartialFile = 18, "Transferred a partial file";
    FtpCouldntRetrFile = 19, "FTP: could not retrieve (RETR failed) the specified file";
    QuoteError = 21, "Quote command returned error";
    HttpReturnedError = 22, "HTTP response code said error";
    WriteError = 23, "Failed writing received data to disk/application";
    UploadFailed = 25, "Upload failed (at start/before it took off)";
    ReadError = 26, "Failed to open/read local data from file/application";
    OutOfMemory = 27, "Out of memory";
    OperationTimedout = 28, "Timeout was reached";
    FtpPortFailed = 30, "FTP: command PORT failed";
    FtpCouldntUseRest = 31, "FTP: command REST failed";
    RangeError = 33, "Requested range was not delivered by the server";
    SslConnectError = 35, "SSL connect error";
    BadDownloadResume = 36, "Could not resume download";
    FileCouldntReadFile = 37, "Could not read a file:// file";
    LdapCannotBind = 38, "LDAP: cannot bind";
    LdapSearchFailed = 39, "LDAP: search failed";
    AbortedByCallback = 42, "Operation was aborted by an application callback";
    BadFunctionArgument = 43, "A libcurl function was given a bad argument";
    InterfaceFailed = 45, "Failed binding local connection end";
    TooManyRedirects = 47, "Number of redirects hit maximum amount";
    UnknownOption = 48, "An unknown option was passed in to libcurl";
    SetoptOptionSyntax = 49, "Malformed option provided in a setopt";
    GotNothing = 52, "Server returned nothing (no headers, no data)";
    SslEngineNotfound = 53, "SSL crypto engine not found";
    SslEngineSetfailed = 54, "Can not set SSL crypto engine as default";
    SendError = 55, "Failed sending data to the peer";
    RecvError = 56, "Failure when receiving data from the peer";
    SslCertproblem = 58, "Problem with the local SSL certificate";
    SslCipher = 59, "Could not use specified SSL cipher";
    PeerFailedVerification = 60, "SSL peer certificate or SSH remote key was not OK";
    BadContentEncoding = 61, "Unrecognized or bad HTTP Content or Transfer-Encoding";
    FilesizeExceeded = 63, "Maximum file size exceeded";
    UseSslFailed = 64, "Requested SSL level failed";
    SendFailRewind = 65, "Send failed since rewinding of the data stream failed";
    SslEngineInitfailed = 66, "Failed to initialise SSL crypto engine";
    LoginDenied = 67, "Login denied";
    TftpNotfound = 68, "TFTP: File Not Found";
    TftpPerm = 69, "TFTP: Access Violation";
    RemoteDiskFull = 70, "Disk full or allocation exceeded";
    TftpIllegal = 71, "TFTP: Illegal operation";
    TftpUnknownid = 72, "TFTP: Unknown transfer ID";
    RemoteFileExists = 73, "Remote file already exists";
    TftpNosuchuser = 74, "TFTP: No such user";
    SslCacertBadfile = 77, "Problem with the SSL CA cert (path? access rights?)";
    RemoteFileNotFound = 78, "Remote file not found";
    Ssh = 79, "Error in the SSH layer";
    SslShutdownFailed = 80, "Failed to shut down the SSL connection";
    Again = 81, "Socket not ready for send/recv";
    SslCrlBadfile = 82, "Failed to load CRL file (path? access rights?, format?)";
    SslIssuerError = 83, "Issuer check against peer certificate failed";
    FtpPretFailed = 84, "FTP: The server did not accept the PRET command.";
    RtspCseqError = 85, "RTSP CSeq mismatch or invalid CSeq";
    RtspSessionError = 86, "RTSP session error";
    FtpBadFileList = 87, "Unable to parse FTP file list";
    ChunkFailed = 88, "Chunk callback failed";
    NoConnectionAvailable = 89, "The max connection limit is reached";
    SslPinnedpubkeynotmatch = 90, "SSL public key does not match pinned public key";
    SslInvalidcertstatus = 91, "SSL server certificate status verification FAILED";
    Http2Stream = 92, "Stream error in the HTTP/2 framing layer";
    RecursiveApiCall = 93, "API function called from within callback";
    AuthError = 94, "An authentication function returned an error";
    Http3 = 95, "HTTP/3 error";
    QuicConnectError = 96, "QUIC connection error";
    Proxy = 97, "proxy handshake error";
    SslClientcert = 98, "SSL Client Certificate required";
    UnrecoverablePoll = 99, "Unrecoverable error in select/poll";
    TooLarge = 100, "A value or data field grew larger than allowed";
    EchRequired = 101, "ECH attempted but failed";
}

/// A failed transfer: the result code and the detailed message (curl's error buffer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    /// The error-buffer text; empty when curl leaves it empty (then strerror is shown).
    pub msg: String,
}

impl Error {
    pub fn new(code: Code, msg: impl Into<String>) -> Error {
        Error {
            code,
            msg: msg.into(),
        }
    }
    /// An error whose message is curl's generic text for the code.
    pub fn code(code: Code) -> Error {
        Error {
            code,
            msg: String::new(),
        }
    }
    /// What the tool prints after `curl: (N) `.
    pub fn message(&self) -> &str {
        if self.msg.is_empty() {
            self.code.strerror()
        } else {
            &self.msg
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}) {}", self.code as u32, self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
