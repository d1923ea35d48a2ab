/// The non-JSON HTML page Google's front end answers a 502 with (docs/fcm.md §4.3 "Front-end 502"
/// [O]: `<title>Error 502 (Server Error)!!1</title>` … `Please try again in 30 seconds.`; the
/// full page is the capture in repo bloomberg/pushiko, `docs/fcm_responses.md`, "Bad gateway").
public enum GoogleFrontEndErrorPage {
    /// The HTTP status the page comes with.
    public static let badGatewayStatus = 502

    /// The page text exactly as pushiko captured it, ending with one newline. The capture
    /// shows `That?s` where the live page most likely has a typographic apostrophe lost in
    /// the capture's encoding; the bytes here are the capture's (see docs/fcm.md).
    public static let badGatewayHTML = #"""
<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
  <title>Error 502 (Server Error)!!1</title>
  <style>
    *{margin:0;padding:0}html,code{font:15px/22px arial,sans-serif}html{background:#fff;color:#222;padding:15px}body{margin:7% auto 0;max-width:390px;min-height:180px;padding:30px 0 15px}* > body{background:url(//www.google.com/images/errors/robot.png) 100% 5px no-repeat;padding-right:205px}p{margin:11px 0 22px;overflow:hidden}ins{color:#777;text-decoration:none}a img{border:0}@media screen and (max-width:772px){body{background:none;margin-top:0;max-width:none;padding-right:0}}#logo{background:url(//www.google.com/images/branding/googlelogo/1x/googlelogo_color_150x54dp.png) no-repeat;margin-left:-5px}@media only screen and (min-resolution:192dpi){#logo{background:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) no-repeat 0% 0%/100% 100%;-moz-border-image:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) 0}}@media only screen and (-webkit-min-device-pixel-ratio:2){#logo{background:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) no-repeat;-webkit-background-size:100% 100%}}#logo{display:inline-block;height:54px;width:150px}
  </style>
  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>
  <p><b>502.</b> <ins>That?s an error.</ins>
  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That?s all we know.</ins>

"""#

    /// The page as response-body bytes.
    public static var badGatewayBody: [UInt8] { Array(badGatewayHTML.utf8) }
}
