//! A small binding to pdfium's C API, loaded at run time from the shared library `seamscope
//! setup` installs (taken from the pinned `pypdfium2` wheel), the way ONNX Runtime is.
//!
//! pdfium is not thread-safe: every call goes through one process-wide lock, and the library,
//! once loaded and initialised, stays loaded for the life of the process.

use std::ffi::{c_char, c_double, c_int, c_uint, c_ulong, c_void};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// pdfium's build, as the pinned `pypdfium2` wheel ships it (`pypdfium2_raw/version.json`).
pub const PDFIUM_BUILD: &str = "159.0.8149";

/// File name of the pdfium library inside the data directory.
#[cfg(target_os = "macos")]
pub const PDFIUM_FILE: &str = "libpdfium.dylib";
/// File name of the pdfium library inside the data directory.
#[cfg(target_os = "windows")]
pub const PDFIUM_FILE: &str = "pdfium.dll";
/// File name of the pdfium library inside the data directory.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub const PDFIUM_FILE: &str = "libpdfium.so";

/// The environment variable that points at another pdfium library.
pub const PDFIUM_ENV: &str = "SEAMSCOPE_PDFIUM_LIB";

type Doc = *mut c_void;
type Page = *mut c_void;
type TextPage = *mut c_void;

// pdfium's error codes (fpdfview.h).
const ERR_FILE: c_ulong = 2;
const ERR_FORMAT: c_ulong = 3;
const ERR_PASSWORD: c_ulong = 4;
const ERR_SECURITY: c_ulong = 5;
const ERR_PAGE: c_ulong = 6;

/// The entry points seamscope uses, resolved once.
struct Api {
    load_mem_document64: unsafe extern "C" fn(*const c_void, usize, *const c_char) -> Doc,
    get_last_error: unsafe extern "C" fn() -> c_ulong,
    get_page_count: unsafe extern "C" fn(Doc) -> c_int,
    load_page: unsafe extern "C" fn(Doc, c_int) -> Page,
    close_page: unsafe extern "C" fn(Page),
    close_document: unsafe extern "C" fn(Doc),
    text_load_page: unsafe extern "C" fn(Page) -> TextPage,
    text_close_page: unsafe extern "C" fn(TextPage),
    text_count_chars: unsafe extern "C" fn(TextPage) -> c_int,
    text_get_unicode: unsafe extern "C" fn(TextPage, c_int) -> c_uint,
    text_get_font_size: unsafe extern "C" fn(TextPage, c_int) -> c_double,
    text_get_font_weight: unsafe extern "C" fn(TextPage, c_int) -> c_int,
    text_get_font_info:
        unsafe extern "C" fn(TextPage, c_int, *mut c_void, c_ulong, *mut c_int) -> c_ulong,
    text_get_char_origin:
        unsafe extern "C" fn(TextPage, c_int, *mut c_double, *mut c_double) -> c_int,
    text_get_text_object: unsafe extern "C" fn(TextPage, c_int) -> *mut c_void,
    /// Keeps the code behind the pointers above mapped.
    _library: libloading::Library,
}

// SAFETY: `Api` holds plain function pointers into a library that is never unloaded; they are
// only ever called while the process-wide `ENGINE` lock is held, so pdfium is never entered
// from two threads at once, whichever thread holds the reference.
unsafe impl Sync for Api {}

/// The loaded engine, by library path (a second path loads that library instead).
static ENGINE: Mutex<Option<(PathBuf, Result<&'static Api, String>)>> = Mutex::new(None);

/// How a run of characters is set: what the Markdown a PDF is read into keeps of its fonts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// A bold face (weight 600 and up, or a bold font name).
    pub bold: bool,
    /// An italic or oblique face.
    pub italic: bool,
    /// A fixed-pitch face (code).
    pub mono: bool,
}

/// Characters of one style, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The characters (spaces pdfium inserted between words included).
    pub text: String,
    /// Their face.
    pub style: Style,
}

/// One line of a page as pdfium reads it out.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The line's runs, a new one where the face changes.
    pub runs: Vec<Run>,
    /// The largest font size on the line, in points.
    pub size: f32,
    /// The baseline of its first character: points up from the page's bottom edge.
    pub baseline: f32,
    /// The left edge of its first character, in points.
    pub left: f32,
}

impl Line {
    /// The line's text, runs joined.
    pub fn text(&self) -> String {
        self.runs.iter().map(|r| r.text.as_str()).collect()
    }

    /// A line of one face, for tests and plain input.
    pub fn plain(text: &str, size: f32, baseline: f32) -> Line {
        Line {
            runs: vec![Run {
                text: text.to_string(),
                style: Style::default(),
            }],
            size,
            baseline,
            left: 0.0,
        }
    }
}

/// What pdfium made of one document.
#[derive(Debug, Clone, PartialEq)]
pub enum Opened {
    /// Each page's lines, in page order.
    Pages(Vec<Vec<Line>>),
    /// The document needs a password.
    Encrypted,
    /// pdfium could not parse it; the words say why.
    Damaged(String),
}

/// Why the engine could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineMissing(pub String);

fn load(path: &Path) -> Result<&'static Api, String> {
    if !path.is_file() {
        return Err(format!("pdfium library not found at {}", path.display()));
    }
    // SAFETY: loading a shared library runs its initialisers; the library named here is the
    // pinned pdfium build setup installed (or one the user pointed at), whose initialisers are
    // pdfium's own static constructors.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|e| format!("cannot load pdfium from {}: {e}", path.display()))?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol is one of pdfium's public C functions, declared here with the
            // signature of its prototype in pdfium's public headers (fpdfview.h, fpdf_text.h)
            // for the pinned build; the pointer is only used while `_library` keeps it mapped.
            *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("{} lacks {}: {e}", path.display(), $name))?
        };
    }
    let init: unsafe extern "C" fn() = sym!("FPDF_InitLibrary");
    let api = Api {
        load_mem_document64: sym!("FPDF_LoadMemDocument64"),
        get_last_error: sym!("FPDF_GetLastError"),
        get_page_count: sym!("FPDF_GetPageCount"),
        load_page: sym!("FPDF_LoadPage"),
        close_page: sym!("FPDF_ClosePage"),
        close_document: sym!("FPDF_CloseDocument"),
        text_load_page: sym!("FPDFText_LoadPage"),
        text_close_page: sym!("FPDFText_ClosePage"),
        text_count_chars: sym!("FPDFText_CountChars"),
        text_get_unicode: sym!("FPDFText_GetUnicode"),
        text_get_font_size: sym!("FPDFText_GetFontSize"),
        text_get_font_weight: sym!("FPDFText_GetFontWeight"),
        text_get_font_info: sym!("FPDFText_GetFontInfo"),
        text_get_char_origin: sym!("FPDFText_GetCharOrigin"),
        text_get_text_object: sym!("FPDFText_GetTextObject"),
        _library: library,
    };
    // SAFETY: FPDF_InitLibrary takes no arguments and is called once per loaded library, under
    // the ENGINE lock, before any other pdfium call.
    unsafe { init() };
    // The library stays loaded for the life of the process: pdfium is initialised once and
    // its globals must not be torn down under a later call.
    Ok(Box::leak(Box::new(api)))
}

/// Where `seamscope setup` puts pdfium under a data directory.
pub fn pdfium_path(data_dir: &Path) -> PathBuf {
    data_dir.join("pdfium").join(PDFIUM_FILE)
}

/// The pdfium library a run uses: `SEAMSCOPE_PDFIUM_LIB`, else the data directory's.
pub fn default_library(data_dir: &Path) -> PathBuf {
    std::env::var_os(PDFIUM_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| pdfium_path(data_dir))
}

/// The pdfium library when no settings name the data directory: `SEAMSCOPE_PDFIUM_LIB`, else
/// under `SEAMSCOPE_DATA_DIR`, else the platform data directory (as `Settings::places` finds it).
pub fn library_without_settings() -> PathBuf {
    let data_dir = std::env::var_os("SEAMSCOPE_DATA_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "seamscope").map(|d| d.data_dir().to_path_buf())
        })
        .unwrap_or_else(|| std::env::temp_dir().join("seamscope").join("data"));
    default_library(&data_dir)
}

/// Whether a pdfium library is present at `path`.
pub fn installed(path: &Path) -> bool {
    path.is_file()
}

/// Open `bytes` as a PDF with the library at `library` and take every page's text, or, with
/// `chars`, the first pages until they hold that many bytes of text.
pub fn page_texts(
    library: &Path,
    bytes: &[u8],
    chars: Option<usize>,
) -> Result<Opened, EngineMissing> {
    let mut guard = ENGINE.lock().unwrap_or_else(|p| p.into_inner());
    if guard.as_ref().is_none_or(|(p, _)| p != library) {
        *guard = Some((library.to_path_buf(), load(library)));
    }
    let api = match guard.as_ref().map(|(_, api)| api) {
        Some(Ok(api)) => *api,
        Some(Err(why)) => return Err(EngineMissing(why.clone())),
        None => return Err(EngineMissing("pdfium was not loaded".into())),
    };
    // SAFETY: the lock is held for the whole extraction (pdfium is not thread-safe); `bytes`
    // outlives the document, which is closed before this returns.
    Ok(unsafe { read_document(api, bytes, chars.unwrap_or(usize::MAX)) })
}

/// # Safety
/// The caller holds the ENGINE lock, and `api` is a loaded, initialised pdfium.
unsafe fn read_document(api: &Api, bytes: &[u8], chars: usize) -> Opened {
    if bytes.is_empty() {
        return Opened::Damaged("the file is empty (0 bytes)".into());
    }
    // SAFETY: `bytes` is a valid buffer of `bytes.len()` bytes that outlives the document (it
    // is closed below, before `bytes` goes); a null password means "none".
    let doc =
        unsafe { (api.load_mem_document64)(bytes.as_ptr().cast(), bytes.len(), std::ptr::null()) };
    if doc.is_null() {
        // SAFETY: no arguments; it reads the error of the call just made, on this thread.
        let err = unsafe { (api.get_last_error)() };
        return match err {
            ERR_PASSWORD | ERR_SECURITY => Opened::Encrypted,
            ERR_FORMAT => Opened::Damaged(
                "not a PDF pdfium can parse (truncated, damaged, or another format renamed)".into(),
            ),
            ERR_FILE => Opened::Damaged("pdfium could not read the file".into()),
            ERR_PAGE => Opened::Damaged("its pages cannot be found".into()),
            other => Opened::Damaged(format!("pdfium failed with error {other}")),
        };
    }
    // SAFETY: `doc` is a valid document handle until the close below.
    let count = unsafe { (api.get_page_count)(doc) }.max(0);
    let mut pages = Vec::with_capacity(count as usize);
    let mut failed = None;
    let mut taken = 0;
    for index in 0..count {
        if taken >= chars {
            break;
        }
        // SAFETY: `doc` is valid and `index` is within its page count.
        match unsafe { page_lines(api, doc, index) } {
            Some(lines) => {
                taken += lines.iter().map(|l| l.text().len() + 1).sum::<usize>();
                pages.push(lines);
            }
            None => {
                failed = Some(index);
                break;
            }
        }
    }
    // SAFETY: `doc` is valid; every page of it was closed in `page_text`.
    unsafe { (api.close_document)(doc) };
    match failed {
        Some(index) => Opened::Damaged(format!("page {} cannot be read", index + 1)),
        None => Opened::Pages(pages),
    }
}

/// # Safety
/// The caller holds the ENGINE lock, `doc` is a valid document and `index` one of its pages.
unsafe fn page_lines(api: &Api, doc: Doc, index: c_int) -> Option<Vec<Line>> {
    // SAFETY: as the function's contract says.
    let page = unsafe { (api.load_page)(doc, index) };
    if page.is_null() {
        return None;
    }
    // SAFETY: `page` is a valid page handle until closed below.
    let text_page = unsafe { (api.text_load_page)(page) };
    let lines = if text_page.is_null() {
        None
    } else {
        // SAFETY: `text_page` is valid until closed below.
        let lines = unsafe { read_lines(api, text_page) };
        // SAFETY: `text_page` is valid and closed once.
        unsafe { (api.text_close_page)(text_page) };
        Some(lines)
    };
    // SAFETY: `page` is valid and closed once, after its text page.
    unsafe { (api.close_page)(page) };
    lines
}

/// # Safety
/// The caller holds the ENGINE lock and `text_page` is a valid text page.
unsafe fn read_lines(api: &Api, text_page: TextPage) -> Vec<Line> {
    // SAFETY: `text_page` is valid (the function's contract).
    let chars = unsafe { (api.text_count_chars)(text_page) }.max(0);
    let mut lines = Vec::new();
    let mut line: Option<Line> = None;
    // The face and size of the text object last looked at: its characters share both.
    let mut face: Option<(*mut c_void, Style, f32)> = None;
    for i in 0..chars {
        // SAFETY: `i` is below the page's character count, `text_page` is valid.
        let code = unsafe { (api.text_get_unicode)(text_page, i) };
        let Some(c) = char::from_u32(code) else {
            continue;
        };
        if c == '\n' {
            lines.extend(line.take());
            continue;
        }
        if c == '\r' || (c.is_control() && c != '\t') || c == '\u{feff}' || c == '\u{fffe}' {
            continue;
        }
        let current = line.get_or_insert_with(|| Line {
            runs: Vec::new(),
            size: 0.0,
            baseline: 0.0,
            left: 0.0,
        });
        if c.is_whitespace() {
            // A space keeps the run it is in (a line's leading space opens a plain one).
            match current.runs.last_mut() {
                Some(run) => run.text.push(' '),
                None => current.runs.push(Run {
                    text: " ".into(),
                    style: Style::default(),
                }),
            }
            continue;
        }
        // SAFETY: as above.
        let object = unsafe { (api.text_get_text_object)(text_page, i) };
        let (style, size) = match face {
            Some((o, style, size)) if o == object && !object.is_null() => (style, size),
            _ => {
                // SAFETY: as above.
                let style = unsafe { face_of(api, text_page, i) };
                // SAFETY: as above.
                let size = unsafe { (api.text_get_font_size)(text_page, i) } as f32;
                face = Some((object, style, size));
                (style, size)
            }
        };
        if current.runs.iter().all(|r| r.text.trim().is_empty()) {
            let (mut x, mut y) = (0.0, 0.0);
            // SAFETY: as above; the two pointers are to locals that outlive the call.
            if unsafe { (api.text_get_char_origin)(text_page, i, &mut x, &mut y) } != 0 {
                current.left = x as f32;
                current.baseline = y as f32;
            }
        }
        current.size = current.size.max(size);
        match current.runs.last_mut() {
            Some(run) if run.style == style || run.text.trim().is_empty() => {
                run.style = style;
                run.text.push(c);
            }
            _ => current.runs.push(Run {
                text: c.to_string(),
                style,
            }),
        }
    }
    lines.extend(line);
    lines.retain(|l| !l.text().trim().is_empty());
    lines
}

/// The face of character `index`: its font's name, flags and weight.
///
/// # Safety
/// The caller holds the ENGINE lock, `text_page` is valid and `index` one of its characters.
unsafe fn face_of(api: &Api, text_page: TextPage, index: c_int) -> Style {
    let mut name = [0u8; 128];
    let mut flags: c_int = 0;
    // SAFETY: `name` holds 128 bytes and pdfium writes at most `buflen` of them; `flags` is a
    // local that outlives the call.
    let len = unsafe {
        (api.text_get_font_info)(
            text_page,
            index,
            name.as_mut_ptr().cast(),
            name.len() as c_ulong,
            &mut flags,
        )
    };
    let name = if (len as usize) <= name.len() {
        String::from_utf8_lossy(&name[..(len as usize).saturating_sub(1)]).to_ascii_lowercase()
    } else {
        String::new()
    };
    // SAFETY: as the function's contract says.
    let weight = unsafe { (api.text_get_font_weight)(text_page, index) };
    // The PDF font descriptor's flags: FixedPitch is bit 1, Italic bit 7, ForceBold bit 19.
    const FIXED_PITCH: c_int = 1;
    const ITALIC: c_int = 1 << 6;
    const FORCE_BOLD: c_int = 1 << 18;
    let named = |words: &[&str]| words.iter().any(|w| name.contains(w));
    Style {
        bold: weight >= 600
            || flags & FORCE_BOLD != 0
            || named(&["bold", "black", "heavy", "semibold", "demi"]),
        italic: flags & ITALIC != 0 || named(&["italic", "oblique"]),
        mono: flags & FIXED_PITCH != 0 || named(&["mono", "courier", "consol", "code"]),
    }
}
