//! The deprecated form API: `curl_formadd` (its variadic half is in `shim.c`, which hands
//! over the option/value pairs), `curl_formfree`, `curl_formget` and what `CURLOPT_HTTPPOST`
//! sends. A form is curl's public `struct curl_httppost` list, built as curl's `formdata.c`
//! builds it (so applications that walk it see the same fields); it is turned into a MIME
//! body, as curl does, each time it is used.

use crate::alloc::{app_free, app_malloc};
use crate::consts::{CURLE_OK, CURLE_READ_ERROR};
use crate::ffi::cstr;
use crate::mime::{self, MimeHandle, MimeReadFn, PartHandle};
use crate::slist::CurlSlist;
use std::ffi::{c_char, c_int, c_long, c_void};

extern "C" {
    /// `fread` on the given `FILE *`, stdin for NULL (shim.c).
    fn oxcurl_fread(p: *mut c_char, size: usize, n: usize, file: *mut c_void) -> usize;
    /// `fseeko` on stdin (shim.c).
    fn oxcurl_stdin_seek(unused: *mut c_void, offset: i64, whence: c_int) -> c_int;
}

pub type CURLFORMcode = c_int;
const CURL_FORMADD_OK: CURLFORMcode = 0;
const CURL_FORMADD_MEMORY: CURLFORMcode = 1;
const CURL_FORMADD_OPTION_TWICE: CURLFORMcode = 2;
const CURL_FORMADD_NULL: CURLFORMcode = 3;
const CURL_FORMADD_UNKNOWN_OPTION: CURLFORMcode = 4;
const CURL_FORMADD_INCOMPLETE: CURLFORMcode = 5;
const CURL_FORMADD_ILLEGAL_ARRAY: CURLFORMcode = 6;

// CURLformoption
const COPYNAME: c_int = 1;
const PTRNAME: c_int = 2;
const NAMELENGTH: c_int = 3;
const COPYCONTENTS: c_int = 4;
const PTRCONTENTS: c_int = 5;
const CONTENTSLENGTH: c_int = 6;
const FILECONTENT: c_int = 7;
const ARRAY: c_int = 8;
const FILE: c_int = 10;
const BUFFER: c_int = 11;
const BUFFERPTR: c_int = 12;
const BUFFERLENGTH: c_int = 13;
const CONTENTTYPE: c_int = 14;
const CONTENTHEADER: c_int = 15;
const FILENAME: c_int = 16;
const END: c_int = 17;
const STREAM: c_int = 19;
const CONTENTLEN: c_int = 20;

// curl_httppost flags
const HTTPPOST_FILENAME: c_long = 1 << 0;
const HTTPPOST_READFILE: c_long = 1 << 1;
const HTTPPOST_PTRNAME: c_long = 1 << 2;
const HTTPPOST_PTRCONTENTS: c_long = 1 << 3;
const HTTPPOST_BUFFER: c_long = 1 << 4;
const HTTPPOST_PTRBUFFER: c_long = 1 << 5;
const HTTPPOST_CALLBACK: c_long = 1 << 6;
const HTTPPOST_LARGE: c_long = 1 << 7;

/// curl.h's `struct curl_httppost`.
#[repr(C)]
pub struct CurlHttpPost {
    next: *mut CurlHttpPost,
    name: *mut c_char,
    namelength: c_long,
    contents: *mut c_char,
    contentslength: c_long,
    buffer: *mut c_char,
    bufferlength: c_long,
    contenttype: *mut c_char,
    contentheader: *mut CurlSlist,
    more: *mut CurlHttpPost,
    flags: c_long,
    showfilename: *mut c_char,
    userp: *mut c_void,
    contentlen: i64,
}

/// curl.h's `struct curl_forms`.
#[repr(C)]
struct CurlForms {
    option: c_int,
    value: *const c_char,
}

/// One option as the shim read it: `p` for pointers, `n` for numbers.
#[repr(C)]
pub struct FormArg {
    opt: c_int,
    p: *mut c_void,
    n: i64,
}

/// curl's `FormInfo`: one file (the first, or one more for the same name) being described.
struct Info {
    name: *mut c_char,
    namelength: usize,
    value: *mut c_char,
    value_alloc: bool,
    contentslength: i64,
    buffer: *mut c_char,
    bufferlength: usize,
    contenttype: *mut c_char,
    contentheader: *mut CurlSlist,
    showfilename: *mut c_char,
    userp: *mut c_void,
    flags: c_long,
}

impl Info {
    fn new() -> Info {
        Info {
            name: std::ptr::null_mut(),
            namelength: 0,
            value: std::ptr::null_mut(),
            value_alloc: false,
            contentslength: 0,
            buffer: std::ptr::null_mut(),
            bufferlength: 0,
            contenttype: std::ptr::null_mut(),
            contentheader: std::ptr::null_mut(),
            showfilename: std::ptr::null_mut(),
            userp: std::ptr::null_mut(),
            flags: 0,
        }
    }
}

/// A copy of `len` bytes plus a NUL in memory `curl_formfree` releases.
fn memdup0(p: *const c_char, len: usize) -> *mut c_char {
    let d = app_malloc(len + 1) as *mut c_char;
    if !d.is_null() && (len == 0 || p.is_null()) {
        // SAFETY: a fresh block of at least one byte.
        unsafe { *d = 0 };
    } else if !d.is_null() {
        // SAFETY: `p` has `len` readable bytes (the caller's contract); `d` is fresh.
        unsafe {
            std::ptr::copy_nonoverlapping(p, d, len);
            *d.add(len) = 0;
        }
    }
    d
}

fn strdup(p: *const c_char) -> *mut c_char {
    // SAFETY: a C string the application passed.
    let len = unsafe { cstr(p) }.map_or(0, <[u8]>::len);
    memdup0(p, len)
}

/// The values curl reads for one option.
enum Val {
    Ptr(*mut c_void),
    Num(i64),
}

/// Parses the options into `infos`, as curl's `FormAdd` does.
///
/// # Safety
/// `args` holds `n` entries from the shim; the pointers are what curl_formadd(3) documents.
unsafe fn parse(args: *const FormArg, n: usize, infos: &mut Vec<Info>) -> CURLFORMcode {
    // SAFETY: per the caller.
    let args = unsafe { std::slice::from_raw_parts(args, n) };
    let mut it = args.iter();
    let mut forms: *const CurlForms = std::ptr::null();
    infos.push(Info::new());
    loop {
        let (opt, val) = if !forms.is_null() {
            // SAFETY: a CURLFORM_END-terminated curl_forms array from the application.
            let f = unsafe { &*forms };
            // SAFETY: still inside the array (END not seen yet).
            forms = unsafe { forms.add(1) };
            if f.option == END {
                forms = std::ptr::null();
                continue;
            }
            // Array values are pointers; lengths are cast to them, as in curl.
            let v = match f.option {
                NAMELENGTH | CONTENTSLENGTH | BUFFERLENGTH | CONTENTLEN => {
                    Val::Num(f.value as usize as i64)
                }
                _ => Val::Ptr(f.value as *mut c_void),
            };
            (f.option, v)
        } else {
            let Some(a) = it.next() else {
                break;
            };
            if a.opt == END {
                break;
            }
            if a.opt == ARRAY {
                if a.p.is_null() {
                    return CURL_FORMADD_NULL;
                }
                forms = a.p as *const CurlForms;
                continue;
            }
            let v = match a.opt {
                NAMELENGTH | CONTENTSLENGTH | BUFFERLENGTH | CONTENTLEN => Val::Num(a.n),
                _ => Val::Ptr(a.p),
            };
            (a.opt, v)
        };
        let (p, num) = match val {
            Val::Ptr(p) => (p, 0),
            Val::Num(n) => (std::ptr::null_mut(), n),
        };
        let cur = infos.last_mut().expect("one info");
        let r = match opt {
            ARRAY => CURL_FORMADD_ILLEGAL_ARRAY,
            PTRNAME | COPYNAME => {
                if opt == PTRNAME {
                    cur.flags |= HTTPPOST_PTRNAME;
                }
                if !cur.name.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.name = p as *mut c_char;
                    CURL_FORMADD_OK
                }
            }
            NAMELENGTH => {
                if cur.namelength != 0 {
                    CURL_FORMADD_OPTION_TWICE
                } else {
                    cur.namelength = num as usize;
                    CURL_FORMADD_OK
                }
            }
            PTRCONTENTS | COPYCONTENTS => {
                if opt == PTRCONTENTS {
                    cur.flags |= HTTPPOST_PTRCONTENTS;
                }
                if !cur.value.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.value = p as *mut c_char;
                    CURL_FORMADD_OK
                }
            }
            CONTENTSLENGTH => {
                cur.contentslength = num as usize as i64;
                CURL_FORMADD_OK
            }
            CONTENTLEN => {
                cur.flags |= HTTPPOST_LARGE;
                cur.contentslength = num;
                CURL_FORMADD_OK
            }
            FILECONTENT => {
                if cur.flags & (HTTPPOST_PTRCONTENTS | HTTPPOST_READFILE) != 0 {
                    CURL_FORMADD_OPTION_TWICE
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.value = strdup(p as *const c_char);
                    cur.flags |= HTTPPOST_READFILE;
                    cur.value_alloc = true;
                    CURL_FORMADD_OK
                }
            }
            FILE => {
                if !cur.value.is_null() {
                    if cur.flags & HTTPPOST_FILENAME == 0 {
                        CURL_FORMADD_OPTION_TWICE
                    } else if p.is_null() {
                        CURL_FORMADD_NULL
                    } else {
                        // One more file for the same name.
                        let mut more = Info::new();
                        more.value = strdup(p as *const c_char);
                        more.value_alloc = true;
                        more.flags = HTTPPOST_FILENAME;
                        infos.push(more);
                        CURL_FORMADD_OK
                    }
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.value = strdup(p as *const c_char);
                    cur.flags |= HTTPPOST_FILENAME;
                    cur.value_alloc = true;
                    CURL_FORMADD_OK
                }
            }
            BUFFERPTR => {
                cur.flags |= HTTPPOST_PTRBUFFER | HTTPPOST_BUFFER;
                if !cur.buffer.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.buffer = p as *mut c_char;
                    cur.value = p as *mut c_char;
                    CURL_FORMADD_OK
                }
            }
            BUFFERLENGTH => {
                if cur.bufferlength != 0 {
                    CURL_FORMADD_OPTION_TWICE
                } else {
                    cur.bufferlength = num as usize;
                    CURL_FORMADD_OK
                }
            }
            STREAM => {
                cur.flags |= HTTPPOST_CALLBACK;
                if !cur.userp.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.userp = p;
                    cur.value = p as *mut c_char;
                    CURL_FORMADD_OK
                }
            }
            CONTENTTYPE => {
                if !cur.contenttype.is_null() {
                    if cur.flags & HTTPPOST_FILENAME == 0 {
                        CURL_FORMADD_OPTION_TWICE
                    } else if p.is_null() {
                        CURL_FORMADD_NULL
                    } else {
                        // A type for one more file (curl's AddFormInfo).
                        let mut more = Info::new();
                        more.contenttype = strdup(p as *const c_char);
                        more.flags = HTTPPOST_FILENAME;
                        infos.push(more);
                        CURL_FORMADD_OK
                    }
                } else if p.is_null() {
                    CURL_FORMADD_NULL
                } else {
                    cur.contenttype = strdup(p as *const c_char);
                    CURL_FORMADD_OK
                }
            }
            CONTENTHEADER => {
                if !cur.contentheader.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else {
                    cur.contentheader = p as *mut CurlSlist;
                    CURL_FORMADD_OK
                }
            }
            FILENAME | BUFFER => {
                if !cur.showfilename.is_null() {
                    CURL_FORMADD_OPTION_TWICE
                } else {
                    cur.showfilename = strdup(p as *const c_char);
                    CURL_FORMADD_OK
                }
            }
            _ => CURL_FORMADD_UNKNOWN_OPTION,
        };
        if r != CURL_FORMADD_OK {
            return r;
        }
    }
    CURL_FORMADD_OK
}

/// Frees what `parse` copied for infos that did not become posts.
fn free_infos(infos: &mut [Info]) {
    for i in infos {
        // SAFETY: each was allocated by memdup0 here and not handed out.
        unsafe {
            if i.value_alloc {
                app_free(i.value as *mut c_void);
            }
            app_free(i.contenttype as *mut c_void);
            app_free(i.showfilename as *mut c_void);
        }
    }
}

/// Typed half of `curl_formadd`: the options up to `CURLFORM_END` (or the first the shim did
/// not know, which ends the list).
#[no_mangle]
pub extern "C" fn oxcurl_formadd(
    first: *mut *mut CurlHttpPost,
    last: *mut *mut CurlHttpPost,
    args: *const FormArg,
    n: usize,
) -> CURLFORMcode {
    guard!(CURL_FORMADD_MEMORY, {
        let mut infos = Vec::new();
        // SAFETY: `args` is the shim's array of `n` entries.
        let r = unsafe { parse(args, n, &mut infos) };
        if r != CURL_FORMADD_OK {
            free_infos(&mut infos);
            return r;
        }
        if first.is_null() || last.is_null() {
            free_infos(&mut infos);
            return CURL_FORMADD_NULL;
        }
        // Check every info is complete first, as curl does before adding anything.
        let mut post: *mut CurlHttpPost = std::ptr::null_mut();
        let mut prevtype: *const c_char = std::ptr::null();
        let mut done = 0;
        let mut result = CURL_FORMADD_OK;
        for (k, f) in infos.iter_mut().enumerate() {
            let fl = f.flags;
            if ((f.name.is_null() || f.value.is_null()) && post.is_null())
                || (f.contentslength != 0 && fl & HTTPPOST_FILENAME != 0)
                || (fl & HTTPPOST_FILENAME != 0 && fl & HTTPPOST_PTRCONTENTS != 0)
                || (f.buffer.is_null() && fl & HTTPPOST_BUFFER != 0 && fl & HTTPPOST_PTRBUFFER != 0)
                || (fl & HTTPPOST_READFILE != 0 && fl & HTTPPOST_PTRCONTENTS != 0)
            {
                result = CURL_FORMADD_INCOMPLETE;
                break;
            }
            if fl & (HTTPPOST_FILENAME | HTTPPOST_BUFFER) != 0 && f.contenttype.is_null() {
                let fname = if fl & HTTPPOST_BUFFER != 0 {
                    f.showfilename
                } else {
                    f.value
                };
                // SAFETY: NULL or a C string (a copy made above or the application's).
                let guess = unsafe { cstr(fname) }
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .and_then(oxcurl_core::mime::content_type_for);
                f.contenttype = match guess {
                    Some(t) => memdup0(t.as_ptr() as *const c_char, t.len()),
                    None if !prevtype.is_null() => strdup(prevtype),
                    None => strdup(c"application/octet-stream".as_ptr()),
                };
            }
            if !f.name.is_null() && f.namelength != 0 {
                // SAFETY: the application's name has at least `namelength` bytes.
                let nm = unsafe { std::slice::from_raw_parts(f.name as *const u8, f.namelength) };
                if nm.contains(&0) {
                    result = CURL_FORMADD_NULL;
                    break;
                }
            }
            if fl & HTTPPOST_PTRNAME == 0 && !f.name.is_null() {
                let len = if f.namelength != 0 {
                    f.namelength
                } else {
                    // SAFETY: a C string.
                    unsafe { cstr(f.name) }.map_or(0, <[u8]>::len)
                };
                f.name = memdup0(f.name, len);
            }
            if fl
                & (HTTPPOST_FILENAME
                    | HTTPPOST_READFILE
                    | HTTPPOST_PTRCONTENTS
                    | HTTPPOST_PTRBUFFER
                    | HTTPPOST_CALLBACK)
                == 0
                && !f.value.is_null()
            {
                // The contents with the NUL (curl's memdup of strlen + 1) or the given size.
                let len = if f.contentslength != 0 {
                    f.contentslength as usize
                } else {
                    // SAFETY: a C string.
                    unsafe { cstr(f.value) }.map_or(0, <[u8]>::len) + 1
                };
                f.value = memdup0(f.value, len);
                f.value_alloc = true;
            }
            let p = app_malloc(std::mem::size_of::<CurlHttpPost>()) as *mut CurlHttpPost;
            if p.is_null() {
                result = CURL_FORMADD_MEMORY;
                break;
            }
            let namelength = if f.namelength == 0 && !f.name.is_null() {
                // SAFETY: a C string (copied or the application's).
                unsafe { cstr(f.name) }.map_or(0, <[u8]>::len)
            } else {
                f.namelength
            };
            // SAFETY: `p` is a fresh block the size of the struct.
            unsafe {
                p.write(CurlHttpPost {
                    next: std::ptr::null_mut(),
                    name: f.name,
                    namelength: namelength as c_long,
                    contents: f.value,
                    contentslength: 0,
                    buffer: f.buffer,
                    bufferlength: f.bufferlength as c_long,
                    contenttype: f.contenttype,
                    contentheader: f.contentheader,
                    more: std::ptr::null_mut(),
                    flags: fl | HTTPPOST_LARGE,
                    showfilename: f.showfilename,
                    userp: f.userp,
                    contentlen: f.contentslength,
                })
            };
            // SAFETY: `post`, `*last` and `*first` are NULL or live posts of this form.
            unsafe {
                if !post.is_null() {
                    (*p).more = (*post).more;
                    (*post).more = p;
                } else {
                    if !(*last).is_null() {
                        (**last).next = p;
                    } else {
                        *first = p;
                    }
                    *last = p;
                    post = p;
                }
            }
            if !f.contenttype.is_null() {
                prevtype = f.contenttype;
            }
            done = k + 1;
        }
        if result != CURL_FORMADD_OK {
            // What went into posts belongs to the form now; the rest is freed.
            free_infos(&mut infos[done..]);
        }
        result
    })
}

/// `curl_formfree`.
#[no_mangle]
pub extern "C" fn curl_formfree(form: *mut CurlHttpPost) {
    guard!((), {
        let mut f = form;
        while !f.is_null() {
            // SAFETY: a post from oxcurl_formadd, freed once (the application's contract).
            unsafe {
                let next = (*f).next;
                curl_formfree((*f).more);
                if (*f).flags & HTTPPOST_PTRNAME == 0 {
                    app_free((*f).name as *mut c_void);
                }
                if (*f).flags & (HTTPPOST_PTRCONTENTS | HTTPPOST_BUFFER | HTTPPOST_CALLBACK) == 0 {
                    app_free((*f).contents as *mut c_void);
                }
                app_free((*f).contenttype as *mut c_void);
                app_free((*f).showfilename as *mut c_void);
                app_free(f as *mut c_void);
                f = next;
            }
        }
    })
}

fn set_name(part: *mut PartHandle, name: *const c_char, len: c_long) {
    if name.is_null() || len == 0 {
        mime::curl_mime_name(part, name);
        return;
    }
    let z = memdup0(name, len as usize);
    mime::curl_mime_name(part, z);
    // SAFETY: made just above; curl_mime_name copied it.
    unsafe { app_free(z as *mut c_void) };
}

/// The form as a MIME body (curl's `Curl_getformdata`); `read` is what reads a
/// `CURLFORM_STREAM` part (the handle's read callback). NULL when the form is empty.
///
/// # Safety
/// `form` is NULL or a live form from `curl_formadd` whose application pointers are alive.
pub(crate) unsafe fn to_mime(
    form: *const CurlHttpPost,
    read: Option<MimeReadFn>,
) -> *mut MimeHandle {
    let top = mime::curl_mime_init(std::ptr::null_mut());
    let mut post = form;
    while !post.is_null() {
        // SAFETY: a live post.
        let p = unsafe { &*post };
        let mut multipart = top;
        if !p.more.is_null() {
            let part = mime::curl_mime_addpart(top);
            set_name(part, p.name, p.namelength);
            multipart = mime::curl_mime_init(std::ptr::null_mut());
            mime::curl_mime_subparts(part, multipart);
        }
        let mut file = post;
        while !file.is_null() {
            // SAFETY: a live post of the same list.
            let fi = unsafe { &*file };
            let part = mime::curl_mime_addpart(multipart);
            mime::curl_mime_headers(part, fi.contentheader, 0);
            if !fi.contenttype.is_null() {
                mime::curl_mime_type(part, fi.contenttype);
            }
            if p.more.is_null() {
                set_name(part, p.name, p.namelength);
            }
            // As curl: the first post's flags and sizes decide for each of its files.
            let clen = if p.flags & HTTPPOST_LARGE != 0 {
                p.contentlen
            } else {
                p.contentslength
            };
            if p.flags & (HTTPPOST_FILENAME | HTTPPOST_READFILE) != 0 {
                // SAFETY: a file name is a NUL-terminated string.
                if unsafe { cstr(fi.contents) } == Some(b"-".as_slice()) {
                    // As curl: stdin is read with fread as it goes, its size unknown.
                    mime::curl_mime_data_cb(
                        part,
                        -1,
                        Some(oxcurl_fread),
                        Some(oxcurl_stdin_seek),
                        None,
                        std::ptr::null_mut(),
                    );
                } else {
                    mime::curl_mime_filedata(part, fi.contents);
                }
                if p.flags & HTTPPOST_READFILE != 0 {
                    mime::curl_mime_filename(part, std::ptr::null());
                }
            } else if p.flags & HTTPPOST_BUFFER != 0 {
                let len = if p.bufferlength != 0 {
                    p.bufferlength as usize
                } else {
                    usize::MAX
                };
                mime::curl_mime_data(part, p.buffer, len);
            } else if p.flags & HTTPPOST_CALLBACK != 0 {
                let clen = if clen == 0 { -1 } else { clen };
                mime::curl_mime_data_cb(part, clen, read, None, None, p.userp);
            } else {
                let len = if clen == 0 { usize::MAX } else { clen as usize };
                mime::curl_mime_data(part, p.contents, len);
            }
            if !p.showfilename.is_null()
                && (!p.more.is_null()
                    || p.flags & (HTTPPOST_FILENAME | HTTPPOST_BUFFER | HTTPPOST_CALLBACK) != 0)
            {
                mime::curl_mime_filename(part, p.showfilename);
            }
            file = fi.more;
        }
        post = p.next;
    }
    top
}

pub type FormGetFn = unsafe extern "C" fn(*mut c_void, *const c_char, usize) -> usize;

/// `curl_formget`: the serialized form (its Content-Type header, a blank line, the body)
/// handed to `append` piece by piece; `CURLE_READ_ERROR` when it does not take a piece whole
/// or the form cannot be read, as curl answers.
#[no_mangle]
pub extern "C" fn curl_formget(
    form: *mut CurlHttpPost,
    arg: *mut c_void,
    append: Option<FormGetFn>,
) -> c_int {
    guard!(-1, {
        // SAFETY: NULL or a live form; streams cannot be read here (no handle), as in curl.
        let m = unsafe { to_mime(form, None) };
        // SAFETY: made just above.
        let body = unsafe { mime::body_of(m, false) };
        // SAFETY: made above, not handed out.
        unsafe { mime::free(m) };
        let Some(body) = body else {
            return -1;
        };
        let Ok((mut reader, _)) = body.reader() else {
            return CURLE_READ_ERROR;
        };
        // As curl, the top part's own header comes first.
        let mut head = format!("Content-Type: {}\r\n\r\n", body.content_type()).into_bytes();
        let mut buf = vec![0u8; 8192];
        loop {
            let n = if head.is_empty() {
                match reader.read(&mut buf) {
                    Ok(0) => return CURLE_OK,
                    Ok(n) => n,
                    Err(_) => return CURLE_READ_ERROR,
                }
            } else {
                let n = head.len();
                buf[..n].copy_from_slice(&head);
                head.clear();
                n
            };
            let Some(f) = append else {
                return CURLE_READ_ERROR;
            };
            // SAFETY: the application's callback; buf holds n bytes.
            if unsafe { f(arg, buf.as_ptr() as *const c_char, n) } != n {
                return CURLE_READ_ERROR;
            }
        }
    })
}
