"""How a printed problem page is worded: problem numbers, headers, score notes, marks,
blanks, working and answer brackets. Pure text rules with no geometry and no models;
:mod:`appliance.ocr` applies them to the lines it reads off a photo."""
