//! Content decoding (interim: identity only; replaced by the full module).
#[derive(Debug)]
pub struct DecodeError(pub String);
impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
pub struct Decoder;
pub const ACCEPT_ENCODING: &str = "deflate, gzip, br, zstd";
impl Decoder {
    pub fn new(_ce: &[u8]) -> Result<Decoder, DecodeError> {
        Ok(Decoder)
    }
    pub fn decode(
        &mut self,
        input: &[u8],
        sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
    ) -> Result<(), DecodeError> {
        sink(input).map_err(|_| DecodeError("write".into()))
    }
    pub fn finish(
        &mut self,
        _sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
    ) -> Result<(), DecodeError> {
        Ok(())
    }
}
