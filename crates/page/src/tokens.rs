//! The tokenizer in front of html5ever's tree builder: html5gum's (a
//! WHATWG-compliant tokenizer that passes html5lib's tokenizer tests), which
//! reads the page in runs of bytes where html5ever's moves one character at
//! a time into growing strings (two thirds of the instructions of parsing a
//! page went there). `Tokens` turns html5gum's events into the tokens of
//! html5ever's tokenizer and switches html5gum's state the way the tree
//! builder asks (RCDATA after `<title>`, RAWTEXT after `<style>`, …), as
//! html5ever's own tokenizer does.

use std::convert::Infallible;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{ns, Attribute, LocalName, QualName};
use html5gum::{Emitter, Error, State};

/// Element and attribute names met before on the page, in a small table
/// indexed by a hash of the name (FNV-1a; a newer name takes the place of an
/// older one that falls on the same entry). html5ever finds an atom by a
/// SipHash of the name in its set of known names (and in a locked global set
/// for the others); a page uses a few dozen names thousands of times, so
/// most are looked up there once per page. No input can make a lookup cost
/// more than one comparison.
struct Names {
    slots: Vec<Option<(Box<[u8]>, LocalName)>>,
}

impl Names {
    /// Room for the hundred-odd names of a page with few collisions (with 64
    /// entries and a hash of the length and two bytes, the look-ups of a
    /// demo result page missed 91 times; now 38, once per distinct name).
    const SLOTS: usize = 256;

    fn new() -> Names {
        Names {
            slots: vec![None; Names::SLOTS],
        }
    }

    fn slot(bytes: &[u8]) -> usize {
        let mut h: u32 = 0x811c_9dc5;
        for &b in bytes {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        (h ^ (h >> 16)) as usize % Names::SLOTS
    }

    /// The atom of an element or attribute name.
    fn local_name(&mut self, bytes: &[u8]) -> LocalName {
        let slot = &mut self.slots[Names::slot(bytes)];
        if let Some((known, name)) = slot {
            if **known == *bytes {
                return name.clone();
            }
        }
        let name = LocalName::from(&*utf8(bytes));
        *slot = Some((bytes.into(), name.clone()));
        name
    }
}

/// Where the emitter gets the list for a start tag's attributes: the tree
/// builder hands each list to the page tree, which copies the attributes
/// and gives the emptied list back, so a page's tags share a few lists
/// instead of allocating one each.
pub(super) trait AttributeLists {
    fn attribute_list(&self) -> Vec<Attribute>;
}

/// html5gum's emitter that feeds a `TokenSink` (the tree builder).
pub(super) struct Tokens<'a, S: TokenSink + AttributeLists> {
    sink: &'a S,
    /// Text not yet passed on (html5gum gives it in pieces).
    text: Vec<u8>,
    end_tag: bool,
    name: Vec<u8>,
    self_closing: bool,
    attrs: Vec<Attribute>,
    names: Names,
    /// The attribute being read, if any.
    in_attr: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    last_start_tag: Vec<u8>,
    doctype_name: Vec<u8>,
    public_id: Option<Vec<u8>>,
    system_id: Option<Vec<u8>>,
    force_quirks: bool,
}

fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    // The input is a `&str` and html5gum splits it at ASCII bytes, so this
    // is valid UTF-8 (still checked: a replacement character if it is not).
    // `from_utf8` first: it reads ASCII a word at a time, where
    // `from_utf8_lossy` goes through its chunks byte by byte.
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn tendril(bytes: &[u8]) -> StrTendril {
    StrTendril::from_slice(&utf8(bytes))
}

impl<'a, S: TokenSink + AttributeLists> Tokens<'a, S> {
    pub(super) fn new(sink: &'a S) -> Self {
        Tokens {
            sink,
            text: Vec::new(),
            end_tag: false,
            name: Vec::new(),
            self_closing: false,
            attrs: Vec::new(),
            names: Names::new(),
            in_attr: false,
            attr_name: Vec::new(),
            attr_value: Vec::new(),
            last_start_tag: Vec::new(),
            doctype_name: Vec::new(),
            public_id: None,
            system_id: None,
            force_quirks: false,
        }
    }

    /// Passes a token on whose answer can only be to go on (the tree
    /// builder switches the tokenizer's state after start tags only).
    fn send(&self, token: Token) {
        let _ = self.sink.process_token(token, 1);
    }

    /// Passes on the text read so far; a NUL is a token of its own, as
    /// html5ever's tokenizer gives it (the tree builder drops it in most
    /// places).
    fn flush_text(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.text);
        for (i, part) in text.split(|&b| b == 0).enumerate() {
            if i > 0 {
                self.send(Token::NullCharacterToken);
            }
            if !part.is_empty() {
                self.send(Token::CharacterTokens(tendril(part)));
            }
        }
        self.text = text;
        self.text.clear();
    }

    /// Ends the attribute being read; a repeated name is dropped (the first
    /// one counts).
    fn finish_attr(&mut self) {
        if !std::mem::take(&mut self.in_attr) {
            return;
        }
        let local = self.names.local_name(&self.attr_name);
        if self.attrs.iter().any(|a| a.name.local == local) {
            return;
        }
        self.attrs.push(Attribute {
            name: QualName::new(None, ns!(), local),
            value: tendril(&self.attr_value),
        });
    }
}

impl<S: TokenSink + AttributeLists> Emitter for Tokens<'_, S> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_text();
        self.send(Token::EOFToken);
    }

    fn emit_error(&mut self, _: Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, s: &[u8]) {
        self.text.extend_from_slice(s);
    }

    fn init_start_tag(&mut self) {
        self.end_tag = false;
        self.name.clear();
        self.self_closing = false;
        self.attrs.clear();
        if self.attrs.capacity() == 0 {
            self.attrs = self.sink.attribute_list();
        }
        self.in_attr = false;
    }

    fn init_end_tag(&mut self) {
        self.end_tag = true;
        self.name.clear();
        self.self_closing = false;
        self.attrs.clear();
        self.in_attr = false;
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<State> {
        self.finish_attr();
        self.flush_text();
        let name = self.names.local_name(&self.name);
        if self.end_tag {
            // An end tag's attributes and self-closing flag are errors only.
            self.send(Token::TagToken(Tag {
                kind: TagKind::EndTag,
                name,
                self_closing: false,
                attrs: Vec::new(),
                had_duplicate_attributes: false,
            }));
            return None;
        }
        self.last_start_tag.clear();
        self.last_start_tag.extend_from_slice(&self.name);
        let tag = Tag {
            kind: TagKind::StartTag,
            name,
            self_closing: self.self_closing,
            attrs: std::mem::take(&mut self.attrs),
            had_duplicate_attributes: false,
        };
        match self.sink.process_token(Token::TagToken(tag), 1) {
            TokenSinkResult::RawData(RawKind::Rcdata) => Some(State::RcData),
            TokenSinkResult::RawData(RawKind::Rawtext) => Some(State::RawText),
            TokenSinkResult::RawData(RawKind::ScriptData) => Some(State::ScriptData),
            TokenSinkResult::Plaintext => Some(State::PlainText),
            _ => None,
        }
    }

    fn emit_current_comment(&mut self) {
        self.flush_text();
        // The page tree keeps no comments, but one still splits the text
        // around it.
        self.send(Token::CommentToken(StrTendril::new()));
    }

    fn emit_current_doctype(&mut self) {
        self.flush_text();
        let doctype = Doctype {
            name: (!self.doctype_name.is_empty()).then(|| tendril(&self.doctype_name)),
            public_id: self.public_id.as_deref().map(tendril),
            system_id: self.system_id.as_deref().map(tendril),
            force_quirks: self.force_quirks,
        };
        self.send(Token::DoctypeToken(doctype));
    }

    fn set_self_closing(&mut self) {
        if !self.end_tag {
            self.self_closing = true;
        }
    }

    fn set_force_quirks(&mut self) {
        self.force_quirks = true;
    }

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _: &[u8]) {}

    fn push_doctype_name(&mut self, s: &[u8]) {
        self.doctype_name.extend_from_slice(s);
    }

    fn init_doctype(&mut self) {
        self.doctype_name.clear();
        self.public_id = None;
        self.system_id = None;
        self.force_quirks = false;
    }

    fn init_attribute(&mut self) {
        self.finish_attr();
        self.in_attr = true;
        self.attr_name.clear();
        self.attr_value.clear();
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        self.attr_name.extend_from_slice(s);
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        self.attr_value.extend_from_slice(s);
    }

    fn set_doctype_public_identifier(&mut self, value: &[u8]) {
        self.public_id = Some(value.to_vec());
    }

    fn set_doctype_system_identifier(&mut self, value: &[u8]) {
        self.system_id = Some(value.to_vec());
    }

    fn push_doctype_public_identifier(&mut self, s: &[u8]) {
        if let Some(id) = &mut self.public_id {
            id.extend_from_slice(s);
        }
    }

    fn push_doctype_system_identifier(&mut self, s: &[u8]) {
        if let Some(id) = &mut self.system_id {
            id.extend_from_slice(s);
        }
    }

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.end_tag && !self.last_start_tag.is_empty() && self.name == self.last_start_tag
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        self.sink
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// The page's bytes as html5gum reads them. html5gum asks for the bytes up
/// to the next of a few delimiters (`<` or `&` in text, the closing quote
/// in an attribute's value, white space, `/` or `>` in a tag's name), and
/// in markup the next one is most often a few bytes away: a byte loop
/// finds it before a vector search has set up (SSE4.2's string compare, as
/// html5gum's own reader does, copies a run shorter than 16 bytes out
/// first). Past the first 16 bytes (text), the vector search takes over.
pub(super) struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    pub(super) fn new(html: &'a str) -> Input<'a> {
        Input {
            rest: html.as_bytes(),
        }
    }
}

/// The bytes searched one at a time before the vector search.
const NEAR: usize = 16;

/// The position of the first byte of `haystack` that is in `needle`.
#[inline(always)]
fn find(needle: &[u8], haystack: &[u8]) -> Option<usize> {
    let mut set = [0u64; 4];
    for &b in needle {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let delimits = |b: u8| (set[usize::from(b >> 6)] >> (b & 63)) & 1 != 0;
    let near = &haystack[..haystack.len().min(NEAR)];
    if let Some(at) = near.iter().position(|&b| delimits(b)) {
        return Some(at);
    }
    let far = haystack.get(NEAR..).filter(|far| !far.is_empty())?;
    let mut bytes = [0; 16];
    bytes[..needle.len()].copy_from_slice(needle);
    let search = jetscii::Bytes::new(bytes, needle.len() as i32, delimits);
    search.find(far).map(|at| at + NEAR)
}

impl html5gum::Reader for Input<'_> {
    type Error = Infallible;

    #[inline(always)]
    fn read_byte(&mut self) -> Result<Option<u8>, Infallible> {
        Ok(self.rest.split_first().map(|(&b, rest)| {
            self.rest = rest;
            b
        }))
    }

    #[inline(always)]
    fn try_read_string(&mut self, s: &[u8], case_sensitive: bool) -> Result<bool, Infallible> {
        match self.rest.get(..s.len()) {
            Some(next) if next == s || (!case_sensitive && next.eq_ignore_ascii_case(s)) => {
                self.rest = &self.rest[s.len()..];
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The first byte alone if it is in `needle`, else every byte before
    /// the first one in `needle` (all that is left if none is): html5gum
    /// needs the split exact.
    #[inline(always)]
    fn read_until<'b>(
        &'b mut self,
        needle: &[u8],
        _: &'b mut [u8; 4],
    ) -> Result<Option<&'b [u8]>, Infallible> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let at = find(needle, self.rest).map_or(self.rest.len(), |at| at.max(1));
        let (chunk, rest) = self.rest.split_at(at);
        self.rest = rest;
        Ok(Some(chunk))
    }
}

#[cfg(test)]
mod tests {
    use html5gum::Reader;

    use super::Input;

    /// What `read_until` must give: the first byte alone if it is in
    /// `needle`, else everything before the first byte that is.
    fn expected<'a>(needle: &[u8], rest: &'a [u8]) -> &'a [u8] {
        match rest.iter().position(|b| needle.contains(b)) {
            Some(0) => &rest[..1],
            Some(at) => &rest[..at],
            None => rest,
        }
    }

    #[test]
    fn reads_up_to_the_first_delimiter_near_and_far() {
        // Delimiters at every distance from the start, before and past the
        // bytes searched one at a time, and none at all.
        let needles: [&[u8]; 4] = [
            b"<&\r\0",
            b"\"&\r\0",
            b"\t\n\x0c />\0\r",
            b"`=<>'\"\t\n\x0c \0\r&",
        ];
        let mut text = String::new();
        for n in 0..70 {
            text.push_str(&"ab\u{e9}cd".repeat(n % 13));
            text.push(['<', '&', '"', ' ', '>', '\r', '=', '\0', '\''][n % 9]);
            text.push_str(&"x".repeat(n));
        }
        for needle in needles {
            let mut input = Input::new(&text);
            let mut rest = text.as_bytes();
            let mut buf = [0; 4];
            while let Some(chunk) = input.read_until(needle, &mut buf).unwrap() {
                assert_eq!(chunk, expected(needle, rest), "needle {needle:?}");
                rest = &rest[chunk.len()..];
            }
            assert!(rest.is_empty());
        }
    }

    #[test]
    fn reads_bytes_and_strings() {
        let mut input = Input::new("<!DOCTYPE x>");
        assert_eq!(input.read_byte().unwrap(), Some(b'<'));
        assert!(!input.try_read_string(b"!doctype", true).unwrap());
        assert!(input.try_read_string(b"!doctype", false).unwrap());
        assert!(input.try_read_string(b" x>", true).unwrap());
        assert_eq!(input.read_byte().unwrap(), None);
        let mut buf = [0; 4];
        assert_eq!(input.read_until(b"<", &mut buf).unwrap(), None);
    }
}
